import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { AbortError } from "../../../engine/index.js";
import { compileGlob, type GlobTest } from "../../search/glob-filter.js";
import { GIT_EXCLUDE, IGNORE_FILE_NAMES, IgnoreRules, type ReadText } from "../../search/ignore-rules.js";
import type { ListFilesRequest } from "../../search/types.js";

/** A folder entry as the walker needs it (a `Dirent` is one). */
export interface WalkEntry {
	name: string;
	isFile(): boolean;
	isDirectory(): boolean;
}

/** Where the walker reads folders and ignore files: the local disk by default, or a snapshot of a remote tree. */
export interface WalkSource {
	/** The entries of a folder (absolute path); rejects when it cannot be read. */
	readdir(absolutePath: string): Promise<WalkEntry[]>;
	/** The text of an ignore file (absolute path); rejects when there is none. */
	readText: ReadText;
}

/** What the built-in walker lists. */
export interface WalkOptions {
	/** Absolute path of the folder to walk. */
	root: string;
	/** Where ignore files above the walked folder are looked up, when `root` is a pinned path. Default: `root`. */
	ignoreRoot?: string;
	/** Honour .gitignore, .ignore and .rgignore. */
	respectIgnoreFiles: boolean;
	/** Only files matching this glob (see `compileGlob`); never brings back an ignored file. */
	include?: string;
	/** Skip files and folders matching this glob. */
	exclude?: string;
	/** Stops the walk. */
	signal: AbortSignal;
	/** Where folders and ignore files are read. Default: the local disk. */
	source?: WalkSource;
}

/**
 * The walk that lists a find request's files: the pinned folder read (`openedRoot`), ignore files
 * above it looked up from `root`, the pattern narrowing as an include glob. `source`: where folders
 * and ignore files are read (default: the local disk).
 */
export function walkOptionsOf(request: ListFilesRequest, signal: AbortSignal, source?: WalkSource): WalkOptions {
	return {
		root: request.openedRoot ?? request.root,
		ignoreRoot: request.root,
		respectIgnoreFiles: request.respectIgnoreFiles,
		include: request.pattern,
		signal,
		source,
	};
}

interface PendingFolder {
	relative: string;
	rules: IgnoreRules | undefined;
}

/** What the walk has still to do: a folder to read, or a run of files to hand out. */
type PendingStep = PendingFolder | { files: string[] };

/**
 * Walks a folder the way ripgrep does: hidden entries included, `.git` skipped, symlinks not
 * followed, ignore files per folder; `exclude` drops files and folders, `include` then narrows
 * the files that are left. Yields root-relative POSIX paths of files in batches, in path order
 * (`comparePaths`: a folder's files and sub-folders merged by name, depth first), as ripgrep's
 * `--sort path` does, so a search with a limit can stop at its first matches; memory holds only
 * the folders and file runs still to visit.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<string[]> {
	const include = options.include ? compileGlob(options.include) : undefined;
	const exclude = options.exclude ? compileGlob(options.exclude) : undefined;
	const rootRules = options.respectIgnoreFiles
		? await IgnoreRules.forRoot(options.ignoreRoot ?? options.root, options.source?.readText)
		: undefined;
	const stack: PendingStep[] = [{ relative: "", rules: rootRules }];
	while (stack.length > 0) {
		if (options.signal.aborted) throw new AbortError();
		const step = stack.pop() as PendingStep;
		if ("files" in step) {
			yield step.files;
			continue;
		}
		const absolute = step.relative === "" ? options.root : join(options.root, step.relative);
		let entries: WalkEntry[];
		try {
			entries = options.source
				? await options.source.readdir(absolute)
				: await readdir(absolute, { withFileTypes: true });
		} catch {
			continue; // unreadable folder: ripgrep warns and goes on
		}
		entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
		let rules = step.rules;
		if (rules) {
			const present = entries
				.filter((entry) => entry.isFile() && isIgnoreFileName(entry.name))
				.map((entry) => entry.name);
			if (entries.some((entry) => entry.name === ".git" && entry.isDirectory())) present.push(GIT_EXCLUDE);
			rules = await rules.enter(absolute, step.relative, present);
		}
		// Names in sorted order are paths in `comparePaths` order (a name holds no `/`): runs of
		// files between sub-folders are handed out in turn with them.
		const steps: PendingStep[] = [];
		let files: string[] = [];
		for (const entry of entries) {
			const isDirectory = entry.isDirectory();
			if (!isDirectory && !entry.isFile()) continue; // symlinks, sockets, devices
			if (entry.name === ".git") continue;
			const path = step.relative === "" ? entry.name : `${step.relative}/${entry.name}`;
			if (!accepts({ path, isDirectory, include, exclude, rules })) continue;
			if (!isDirectory) {
				files.push(path);
				continue;
			}
			if (files.length > 0) steps.push({ files });
			files = [];
			steps.push({ relative: path, rules });
		}
		if (files.length > 0) steps.push({ files });
		const [first, ...rest] = steps;
		for (let index = rest.length - 1; index >= 0; index--) stack.push(rest[index] as PendingStep);
		// A folder's first run of files is handed out at once (most folders have only files).
		if (first !== undefined) {
			if ("files" in first) yield first.files;
			else stack.push(first);
		}
	}
}

function isIgnoreFileName(name: string): boolean {
	return (IGNORE_FILE_NAMES as readonly string[]).includes(name);
}

function accepts(entry: {
	path: string;
	isDirectory: boolean;
	include: GlobTest | undefined;
	exclude: GlobTest | undefined;
	rules: IgnoreRules | undefined;
}): boolean {
	const { path, isDirectory, include, exclude, rules } = entry;
	if (exclude?.(path, isDirectory)) return false;
	if (rules?.ignores(path, isDirectory)) return false;
	return isDirectory || !include || include(path, false);
}
