import type { ToolTarget } from "../engine/index.js";
import type { FileInfo, FileOperations } from "./files/contract.js";
import {
	confineFileOperations,
	localFileOperations,
	localShellOperations,
	noteWritableRoots,
	type PinnedFolder,
	pinLocalFolder,
} from "./local/index.js";
import { type LookedUpPath, lookUpExistingPath, type PathMatch } from "./paths/near-miss.js";
import { displayPath, resolveToolPath } from "./paths/paths.js";
import { isInsideRoot, outsideRootsError, realPathOf } from "./paths/real-path.js";
import { schedulingKey } from "./paths/scheduling-key.js";
import type { ShellOperations } from "./shell/exec-types.js";

/** A path argument resolved once, as the tool will use it and as the guards judge it. */
export interface ResolvedPath {
	/** The absolute path the tool acts on: `~` expanded, relative to cwd, an existing near-miss name found. */
	absolutePath: string;
	/** Facts about it (symlinks followed) when it exists. */
	info: FileInfo | undefined;
	/** How an existing file was matched to the argument, or undefined when nothing exists there. */
	match: PathMatch | undefined;
	/** Its real path: every symlink resolved, also for a file not created yet (see `realPathOf`). */
	realPath: string;
	/** The key the file mutation queue serializes this file under. */
	key: string;
	/** How results show it: relative to cwd with `/` when inside it, absolute otherwise. */
	display: string;
}

/** A call's target as a workspace resolved it: what the tool declared, plus what the workspace found. */
export interface WorkspaceTarget extends ToolTarget {
	/** The workspace that resolved it (and whose operations the tool uses). */
	workspace: Workspace;
	/** The resolved path, when the call acts on one and resolving it worked. */
	resolved?: ResolvedPath;
	/** Why resolving the path failed (the tool reports it when it runs); the guards judge the literal path. */
	resolveError?: unknown;
	/**
	 * For `write`: the call changes part of an existing file (edit) rather than replacing it whole,
	 * so it cannot blindly overwrite content the model never saw. Default: false.
	 */
	partial?: boolean;
	/**
	 * Set by a guard: the real roots the call must stay inside. The tool then does its I/O through
	 * `workspace.filesFor(target)`, which checks the objects it really opens against them.
	 */
	confinedTo?: readonly string[];
	/**
	 * Set by a guard: true for an absolute path whose name and content the call must not show (a
	 * read deny rule). Listing and search tools leave such entries out. Contract: synchronous, no I/O.
	 */
	hides?: (absolutePath: string) => boolean;
	/**
	 * For a call that acts on several files (apply_patch): one resolved target per file, each
	 * judged by the guards as if it were a call of its own; a refusal of any refuses the call.
	 * The call itself then has no `path`. Default: none (the call acts on `path` alone).
	 */
	parts?: readonly WorkspaceTarget[];
}

/** What a file tool declares before the workspace resolves it. */
export type DeclaredTarget = ToolTarget & Pick<WorkspaceTarget, "partial">;

/** How `resolve` looks a path up. */
export interface ResolveOptions {
	/** Look for an existing name that differs only invisibly (NBSP, NFD, a pasted `@`). Default: true. */
	nearMiss?: boolean;
	/** The batch's shared look-ups (`TargetContext.lookups`), so its calls ask for a folder's real path once. Default: none. */
	lookups?: Map<string, unknown>;
}

/**
 * What calls act on: the working directory, the file and process operations (local, SSH,
 * container, or a test double), and the one place paths are resolved. Tools and guards both go
 * through it, so a guard judges the same disk the tool touches.
 */
export interface Workspace {
	/** The tools' working directory (absolute): relative paths are taken from here. */
	readonly cwd: string;
	/** File access. */
	readonly files: FileOperations;
	/** Process access (bash, powershell). */
	readonly shell: ShellOperations;
	/** Purely lexical: `~` expanded, relative paths taken from cwd. No I/O. */
	lexicalPath(path: string): string;
	/** Resolves a path argument once: near-miss names, real path, queue key, display path. */
	resolve(path: string, options?: ResolveOptions): Promise<ResolvedPath>;
	/** The real path of an absolute path (see `realPathOf`). */
	realPath(absolutePath: string): Promise<string>;
	/** How results show an absolute path. No I/O. */
	displayPath(absolutePath: string): string;
	/** Resolves a declared target (its `path`, if any) into a `WorkspaceTarget`. */
	resolveTarget(declared: DeclaredTarget, options?: ResolveOptions): Promise<WorkspaceTarget>;
	/**
	 * The file operations a call must use: the workspace's own, or, when a guard confined the
	 * target, operations that verify every object they open lies inside `confinedTo`.
	 */
	filesFor(target: ToolTarget | undefined): FileOperations;
	/**
	 * Holds a folder a search walks: when a guard confined the target, the folder is opened and
	 * verified (on the local disk on Linux, pinned through `/proc/self/fd/N`; elsewhere its real
	 * path is checked, best effort); otherwise the path as it is. Throws for a folder outside the roots.
	 */
	pinFolder(absolutePath: string, target: ToolTarget | undefined): Promise<PinnedFolder>;
}

/** Options of `createLocalWorkspace`. */
export interface LocalWorkspaceOptions {
	/** File access. Default: `localFileOperations` (this machine's disk). */
	files?: FileOperations;
	/** Process access. Default: `localShellOperations`. */
	shell?: ShellOperations;
}

/** True when `target` was resolved by a workspace (it carries one). */
export function isWorkspaceTarget(target: ToolTarget | undefined): target is WorkspaceTarget {
	return target !== undefined && typeof (target as Partial<WorkspaceTarget>).workspace === "object";
}

/**
 * What the guards judge of a call: each of its `parts` when it acts on several files, else the
 * target itself (also for a multi-file call whose parts could not be worked out).
 */
export function partsOfTarget(target: ToolTarget | undefined): readonly (ToolTarget | undefined)[] {
	return isWorkspaceTarget(target) && target.parts && target.parts.length > 0 ? target.parts : [target];
}

/**
 * The default workspace: a folder on this machine (or whatever `files` / `shell` reach).
 *
 * @example
 * const workspace = createLocalWorkspace(process.cwd());
 * const tools = createCodingTools(workspace.cwd, { write: { workspace } });
 */
export function createLocalWorkspace(cwd: string, options: LocalWorkspaceOptions = {}): Workspace {
	const files = options.files ?? localFileOperations;
	const shell = options.shell ?? localShellOperations;
	// Calls write here: no program toolbelt runs itself is taken from this folder from now on.
	if (files === localFileOperations) noteWritableRoots([resolveToolPath("/", cwd)]);
	const confined = new Map<string, FileOperations>();
	const workspace: Workspace = {
		cwd: resolveToolPath("/", cwd),
		files,
		shell,
		lexicalPath: (path) => resolveToolPath(workspace.cwd, path),
		displayPath: (absolutePath) => displayPath(workspace.cwd, absolutePath),
		realPath: (absolutePath) => realPathOf(files, absolutePath),
		resolve: async (path, resolveOptions = {}) => {
			const found =
				resolveOptions.nearMiss === false
					? await lexicalLookup(files, resolveToolPath(workspace.cwd, path))
					: await lookUpExistingPath(workspace.cwd, path, files);
			const realPath = await realPathOf(files, found.absolutePath, { own: found.own, lookups: resolveOptions.lookups });
			const { absolutePath, info, match } = found;
			return { absolutePath, info, match, realPath, key: realPath, display: displayPath(workspace.cwd, absolutePath) };
		},
		resolveTarget: async (declared, resolveOptions) => {
			const target: WorkspaceTarget = { ...declared, workspace };
			if (declared.path === undefined) return target;
			try {
				target.resolved = await workspace.resolve(declared.path, resolveOptions);
			} catch (error) {
				target.resolveError = error;
				return target;
			}
			const touches = touchesOf(declared, target.resolved);
			if (touches) target.touches = touches;
			return target;
		},
		pinFolder: async (absolutePath, target) => {
			const roots = isWorkspaceTarget(target) ? target.confinedTo : undefined;
			if (!roots) return { path: absolutePath, release: () => {} };
			const pinned = files === localFileOperations ? pinLocalFolder(absolutePath, roots) : undefined;
			if (pinned) return pinned;
			const real = await realPathOf(files, absolutePath);
			if (!roots.some((root) => isInsideRoot(root, real))) throw outsideRootsError(absolutePath, real, roots);
			return { path: absolutePath, realPath: real, release: () => {} };
		},
		filesFor: (target) => {
			const roots = isWorkspaceTarget(target) ? target.confinedTo : undefined;
			if (!roots) return files;
			const key = roots.join("\u0000");
			let operations = confined.get(key);
			if (!operations) {
				operations = confineFileOperations(files, roots);
				confined.set(key, operations);
			}
			return operations;
		},
	};
	return workspace;
}

/**
 * What a call on one path touches, for the scheduler: the file's key, for a read or a write. Unknown
 * (the call is ordered against every other) for a listing or search, which may follow links out
 * of its folder, and for a file with several hard links, whose other names are not known.
 */
function touchesOf(declared: DeclaredTarget, resolved: ResolvedPath): readonly string[] | undefined {
	if (declared.access !== "read" && declared.access !== "write") return undefined;
	if ((resolved.info?.links ?? 1) > 1) return undefined;
	return [schedulingKey(resolved.key)];
}

async function lexicalLookup(files: FileOperations, absolutePath: string): Promise<LookedUpPath> {
	const info = await files.stat(absolutePath).catch(() => undefined);
	return { absolutePath, info, match: info ? "exact" : undefined };
}

/** How a file tool (read, write, edit, ls, apply_patch) reaches its files: the options they all take. */
export interface FileToolOptions {
	/** What the tool acts on: its folder, file access and path resolution. Default: a local workspace at `cwd` with `operations`. */
	workspace?: Workspace;
	/** File access. Default: `localFileOperations`. @deprecated Pass `workspace` (e.g. `createLocalWorkspace(cwd, { files })`). */
	operations?: FileOperations;
}

/**
 * The workspace a tool uses: the one given, else one built from the deprecated `cwd` and
 * `operations` options, so existing callers keep working.
 */
export function workspaceOf(cwd: string, options: FileToolOptions): Workspace {
	return options.workspace ?? createLocalWorkspace(cwd, { files: options.operations });
}

/**
 * The target a tool's `execute` works on: the one the engine carried (resolved by this
 * workspace for the same path, and possibly confined or filtered by the guards), else the
 * declared target resolved now — for callers that run `execute` directly.
 */
export function callTarget(
	workspace: Workspace,
	given: ToolTarget | undefined,
	declared: DeclaredTarget,
	options?: ResolveOptions,
): Promise<WorkspaceTarget> {
	const carried = carriedTarget(workspace, given, declared);
	return carried ? Promise.resolve(carried) : workspace.resolveTarget(declared, options);
}

/**
 * The target the engine carried when this workspace resolved it for the same path (see
 * `callTarget`), known without waiting; undefined when `execute` must resolve it itself.
 */
export function carriedTarget(
	workspace: Workspace,
	given: ToolTarget | undefined,
	declared: DeclaredTarget,
): WorkspaceTarget | undefined {
	return isWorkspaceTarget(given) && given.workspace === workspace && given.path === declared.path ? given : undefined;
}

/** The target of a shell call: the command it runs, in which shell syntax. */
export interface CommandTarget extends ToolTarget {
	access: "execute";
	command: string;
	/** The shell syntax, so command rules split it the way that shell would. */
	dialect: "bash" | "powershell";
}

/** Declares a shell call's target. */
export function commandTarget(command: string, dialect: CommandTarget["dialect"]): CommandTarget {
	return { access: "execute", command, dialect };
}
