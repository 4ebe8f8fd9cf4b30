import { randomUUID } from "node:crypto";
import * as nativePath from "node:path";
import type { ToolHooks, ToolTarget } from "../engine/index.js";
import { createLocalWorkspace, isWorkspaceTarget, partsOfTarget } from "../workspace/index.js";
import { type CheckpointFileAccess, localCheckpointFiles } from "./file-access.js";
import { applyImage, type CapturedImage, captureOf, imageOf, sameImage } from "./images.js";
import { madeBy, missingFolders, removeMadeFolders } from "./made-folders.js";
import {
	type Checkpoint,
	type CheckpointFile,
	CheckpointStore,
	type CheckpointStoreOptions,
	type FileImage,
} from "./store.js";
import { checkpointFilesOf } from "./workspace-file-access.js";

/**
 * Why undo must not write `path` (absolute, inside the workspace's folder), or undefined when a
 * write there is allowed: judged as a write of the tools is, on the disk the files are restored
 * on, when the undo runs (the safety layer's `Confinement.refusalOfWrite`: its real path, links
 * followed, outside the workspace, or a protected path such as `.git/hooks/…` or `.vscode/tasks.json`).
 * Contract: resolves a reason rather than throwing for a path it cannot judge.
 */
export type RestoreGuard = (path: string) => Promise<string | undefined>;

/** Options of `createCheckpoints`: where and how much (see `CheckpointStoreOptions`), and on which disk. */
export interface CheckpointsOptions extends CheckpointStoreOptions {
	/**
	 * How the workspace's files are read and restored: `checkpointFilesOf(workspace, { roots })`
	 * (a remote workspace passes `remoteCheckpointFiles(workspace, { roots })` and a `workspace`
	 * key naming the remote, e.g. its URL). Default: this machine's disk through a local workspace,
	 * restores confined to `root` (unconfined `localCheckpointFiles` when no root is known).
	 */
	files?: CheckpointFileAccess;
	/**
	 * Judges each path before undo writes it, as a write is judged (see `RestoreGuard`); a path it
	 * refuses is listed in `RestoreReport.refused` and not written. Default: none (only the
	 * lexical check against `root` and the confinement of `files`).
	 */
	guard?: RestoreGuard;
	/**
	 * The workspace folder (its real path, on the disk `files` reach) that undo restores inside:
	 * a log entry naming any other path is refused and listed, never written. Default: `workspace`
	 * when it is an absolute path (a local workspace's key); a remote workspace must pass its folder.
	 */
	root?: string;
}

/** What `restore` should take back. Default: the last turn. */
export interface RestoreOptions {
	/** Undo the last N turns. Default: 1 (when `calls` is not given). */
	turns?: number;
	/** Undo the last N calls instead. */
	calls?: number;
	/** Overwrite files that something else changed after the checkpoint. Default: false (refused, listed). */
	force?: boolean;
}

/** What `restore` did. */
export interface RestoreReport {
	/** The files put back, with the state they now have again (a file's mode without set-user-ID and set-group-ID). */
	restored: { path: string; to: FileImage["kind"] }[];
	/** Files changed after the checkpoint by something else: not restored unless `force` (then nothing was). */
	conflicts: string[];
	/**
	 * Paths the log names that undo does not write, with why: outside the workspace it was
	 * recorded for, not a plain absolute path, refused by the guard (it now leads outside, or to a
	 * protected path such as a git hook), content that was not kept, or refused where it was written
	 * (a folder swapped for a link meanwhile). Their entries are dropped from the log (with content
	 * no other entry uses); nothing is written for them. Empty when the log is sound.
	 */
	refused: { path: string; reason: string }[];
	/** The folders the undone calls made that were removed with their files (empty, inside the workspace). */
	foldersRemoved: string[];
	/** How many calls and turns were undone (0 when refused). */
	calls: number;
	turns: number;
}

/** Checkpoints of one workspace: hooks that record them, and the way back. */
export interface Checkpoints {
	/** Add to the tools' hooks (after the safety layer, so only calls that run are recorded). */
	hooks: ToolHooks;
	/** Starts a new turn: calls from now on are undone together. */
	startTurn(): void;
	/** Every checkpoint, oldest first. */
	list(): Promise<Checkpoint[]>;
	/** Puts the files back as they were before the last turns or calls. */
	restore(options?: RestoreOptions): Promise<RestoreReport>;
	/** The store (its folder, for messages). */
	store: CheckpointStore;
}

/** The paths a write may change: the name given and, through a symlink, the file it reaches. */
function pathsOf(target: ToolTarget | undefined): string[] {
	if (target?.access !== "write") return [];
	const paths = new Set<string>();
	for (const part of partsOfTarget(target)) {
		if (!isWorkspaceTarget(part) || !part.resolved) continue;
		paths.add(part.resolved.absolutePath);
		paths.add(part.resolved.realPath);
	}
	return [...paths];
}

/** The checkpoints to undo: the last `calls`, or those of the last `turns`. */
function selected(all: readonly Checkpoint[], options: RestoreOptions): Checkpoint[] {
	if (options.calls !== undefined) return all.slice(Math.max(0, all.length - options.calls));
	const turns = new Set<string>();
	let index = all.length;
	const wanted = options.turns ?? 1;
	while (index > 0) {
		const turn = (all[index - 1] as Checkpoint).turn;
		if (!turns.has(turn)) {
			if (turns.size === wanted) break;
			turns.add(turn);
		}
		index--;
	}
	return all.slice(index);
}

/** One file's part in an undo: its state before the first undone call, the state the last one left, the folders they made. */
interface PlannedFile {
	before: FileImage;
	after: FileImage;
	madeFolders: string[];
}

/** Per file: the state before the first undone call, the state the last one left, and the folders made for it. */
function plan(undone: readonly Checkpoint[]): Map<string, PlannedFile> {
	const files = new Map<string, PlannedFile>();
	for (const checkpoint of undone) {
		for (const file of checkpoint.files) {
			const known = files.get(file.path);
			const madeFolders = [...(known?.madeFolders ?? []), ...(file.madeFolders ?? [])];
			files.set(file.path, { before: known?.before ?? file.before, after: file.after, madeFolders });
		}
	}
	return files;
}

/** Why undo must not write `path`, or undefined: it must be a plain absolute path inside `root`. */
function refusalOf(path: string, root: string | undefined, posix: boolean): string | undefined {
	const paths = posix ? nativePath.posix : nativePath;
	if (root === undefined) return "the workspace folder undo may restore inside is not known";
	if (!paths.isAbsolute(path) || paths.resolve(path) !== path) return "not a plain absolute path";
	const inside = path === root || path.startsWith(root.endsWith(paths.sep) ? root : root + paths.sep);
	return inside ? undefined : `outside the workspace ${root} these checkpoints belong to`;
}

/** The real path of the folder `path` is in, as judged now; undefined when `access` cannot confine to it. */
async function judgedFolderOf(access: CheckpointFileAccess, path: string): Promise<string | undefined> {
	if (!access.realPath || !access.within) return undefined;
	const paths = access.posixPaths ? nativePath.posix : nativePath;
	return access.realPath(paths.dirname(path));
}

/**
 * What a restore writes through: `access` confined to the folder judged, so a folder swapped for
 * a link since (to a protected folder inside the workspace, such as `.git/hooks`) refuses the write
 * there. Missing folders are still made under the workspace's own roots, then the write is confined.
 */
function writerFor(access: CheckpointFileAccess, folder: string | undefined): CheckpointFileAccess {
	if (!folder || !access.within) return access;
	return { ...access.within([folder]), makeParentFolder: access.makeParentFolder };
}

interface RestoreContext {
	store: CheckpointStore;
	access: CheckpointFileAccess;
	root: string | undefined;
	guard: RestoreGuard | undefined;
}

/** Why `path` is not restored: outside the root, judged unsafe by the guard, or its content was not kept. */
async function refusalFor(context: RestoreContext, path: string, before: FileImage): Promise<string | undefined> {
	const lexical = refusalOf(path, context.root, context.access.posixPaths === true);
	if (lexical !== undefined) return lexical;
	const judged = await context.guard?.(path);
	if (judged !== undefined) return judged;
	return unkeptContent(context.store, before);
}

/** Why `before` cannot be put back: its content was larger than the store keeps, so it was never stored. */
async function unkeptContent(store: CheckpointStore, before: FileImage): Promise<string | undefined> {
	if (before.kind !== "file" || before.size <= store.maxContentBytes || (await store.hasBlob(before.blob))) {
		return undefined;
	}
	return `its content before the call (${before.size} bytes) was larger than the ${store.maxContentBytes} bytes the checkpoint store keeps, so it was not kept; restore it from version control or a backup`;
}

async function restoreWith(context: RestoreContext, options: RestoreOptions): Promise<RestoreReport> {
	const { store, access } = context;
	const all = await store.list();
	const undone = selected(all, options);
	const files = plan(undone);
	const conflicts: string[] = [];
	const refused: RestoreReport["refused"] = [];
	// The real folder each path was judged in: its restore is confined to it (see `writerFor`).
	const judgedFolders = new Map<string, string>();
	for (const [path, { before }] of files) {
		// Taken before the judge looks: a swap after this point makes the write refuse, one before it the judge sees.
		const folder = await judgedFolderOf(access, path);
		const reason = await refusalFor(context, path, before);
		if (reason === undefined) {
			if (folder) judgedFolders.set(path, folder);
			continue;
		}
		refused.push({ path, reason });
		files.delete(path);
	}
	// Already as before (an undo cut off midway, e.g. by a dropped connection): nothing to write.
	const settled = new Set<string>();
	for (const [path, { before, after }] of files) {
		const now = await imageOf(access, path, { maxBytes: store.maxContentBytes, comparedWith: [after, before] });
		if (sameImage(now, after)) continue;
		if (sameImage(now, before)) settled.add(path);
		else conflicts.push(path);
	}
	const turns = new Set(undone.map((checkpoint) => checkpoint.turn)).size;
	if (conflicts.length > 0 && !options.force) {
		return { restored: [], conflicts, refused, foldersRemoved: [], calls: 0, turns: 0 };
	}
	const restored: RestoreReport["restored"] = [];
	// Links before the files they reach: relinking must not happen after writing through them.
	const ordered = [...files].sort(
		([, a], [, b]) => Number(b.before.kind === "symlink") - Number(a.before.kind === "symlink"),
	);
	for (const [path, { before }] of ordered) {
		try {
			if (!settled.has(path)) await applyImage(writerFor(access, judgedFolders.get(path)), path, before, store);
			restored.push({ path, to: before.kind });
		} catch (error) {
			// Refused where it was written (a folder swapped for a link meanwhile) or failed: listed, never retried blindly.
			refused.push({ path, reason: `not written: ${error instanceof Error ? error.message : String(error)}` });
		}
	}
	// A file taken back to absent takes the folders made for it along, those still empty.
	const gone = new Set(restored.filter((file) => file.to === "absent").map((file) => file.path));
	const made = [...files].filter(([path]) => gone.has(path)).flatMap(([, file]) => file.madeFolders);
	const foldersRemoved = await removeMadeFolders(access, made, context.root, context.guard);
	await store.rewrite(all.slice(0, all.length - undone.length));
	return { restored, conflicts, refused, foldersRemoved, calls: undone.length, turns };
}

/**
 * Records a checkpoint of every mutating call (a target with `write` access: write, edit,
 * apply_patch, and any tool that declares one): the before-image of each file it touches
 * (content, mode, symlink target, absence), taken before the call and kept when the call changed
 * the file, grouped by turn, in the user's state directory. `restore` takes the last turns or
 * calls back, refusing files changed since by something else. Changes made by shell commands are
 * not recorded. Files are read and restored through `options.files`: this machine's disk, or a
 * remote workspace's own file operations (the store stays on this machine).
 *
 * @example
 * const checkpoints = await createCheckpoints({ workspace: await realpath(cwd) });
 * const agent = new Agent({ ...composeHooks([safety.hooks, checkpoints.hooks]) });
 */
export async function createCheckpoints(options: CheckpointsOptions): Promise<Checkpoints> {
	const store = await CheckpointStore.open(options);
	const root = options.root ?? (nativePath.isAbsolute(options.workspace) ? options.workspace : undefined);
	const access =
		options.files ??
		(root === undefined ? localCheckpointFiles : checkpointFilesOf(createLocalWorkspace(root), { roots: [root] }));
	// The turn is taken when the call starts: a turn begun while it runs does not own it.
	const pending = new WeakMap<
		ToolTarget,
		{ turn: string; files: { path: string; before: CapturedImage; missing: string[] }[] }
	>();
	let turn = randomUUID();
	const hooks: ToolHooks = {
		beforeToolCall: async ({ target }) => {
			const paths = pathsOf(target);
			if (!target || paths.length === 0) return undefined;
			const startedIn = turn;
			const files = await Promise.all(
				paths.map(async (path) => {
					const before = await captureOf(access, path, store.maxContentBytes);
					// For a new file, the folders the call may make for it (undo takes them back).
					const missing = before.image.kind === "absent" ? await missingFolders(access, path, root) : [];
					return { path, before, missing };
				}),
			);
			pending.set(target, { turn: startedIn, files });
			return undefined;
		},
		afterToolCall: async ({ target, tool }) => {
			const started = target ? pending.get(target) : undefined;
			if (!target || !started) return undefined;
			pending.delete(target);
			const files: CheckpointFile[] = [];
			for (const { path, before, missing } of started.files) {
				const after = await imageOf(access, path, { maxBytes: store.maxContentBytes });
				if (sameImage(before.image, after)) continue;
				if (before.bytes) await store.putBlob(before.bytes);
				const madeFolders = missing.length > 0 ? await madeBy(access, missing) : [];
				files.push({ path, before: before.image, after, ...(madeFolders.length > 0 ? { madeFolders } : {}) });
			}
			if (files.length > 0)
				await store.append({ id: randomUUID(), turn: started.turn, time: Date.now(), tool: tool.name, files });
			return undefined;
		},
	};
	return {
		hooks,
		store,
		startTurn: () => {
			turn = randomUUID();
		},
		list: () => store.list(),
		restore: (restoreOptions = {}) => restoreWith({ store, access, root, guard: options.guard }, restoreOptions),
	};
}
