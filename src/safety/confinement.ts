import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ToolHooks, ToolTarget } from "../engine/index.js";
import {
	createLocalWorkspace,
	isWorkspaceTarget,
	partsOfTarget,
	type Workspace as ToolWorkspace,
} from "../tools/index.js";
import { compilePathPattern, type PathPattern, relativeInside } from "./permissions/path-pattern.js";
import { defaultProtectedPatterns } from "./runs-later/auto-run-entries.js";
import { type GitNamedPath, gitNamedPaths } from "./runs-later/git-named-paths.js";

export { defaultProtectedPatterns };

/** Where a call's target points, and how that relates to the workspace roots. */
export interface PathCheck {
	/** The path as the tool resolves it (`~` expanded, relative to cwd, near-miss names found as the tool finds them). */
	lexicalPath: string;
	/** Its real path (symlinks resolved, also for a file not created yet). */
	realPath: string;
	/** The workspace root (real path) that contains it, or undefined when it lies outside every root. */
	root?: string;
	/** The protected pattern it falls under (`.git`, `.toolbelt`, `.env*`), or what git does with it (`a git hooks folder (core.hooksPath)`), for writes only. */
	protectedBy?: string;
}

/** Options of `Confinement.create`. */
export interface ConfinementOptions {
	/** The working directory of the tools: relative paths are taken from here. */
	cwd: string;
	/** Directories the file tools may touch. Default: `[cwd]`. */
	roots?: readonly string[];
	/**
	 * Gitignore-style patterns (relative to each root, at any depth) that writes need an explicit
	 * allow rule for. Default: the files that run later (`.git`, `.toolbelt`, `.claude`, `.vscode`,
	 * `.husky`, `.envrc`, … see `autoRunEntries`) and `.env*`. Whatever the patterns, the paths git
	 * reads or runs for the roots' repositories (hooks folders a config names, included config
	 * files, git directories a `.git` file points to) are protected too.
	 */
	protectedPatterns?: readonly string[];
	/** The workspace whose disk the roots are resolved on. Default: a local workspace at `cwd`. */
	workspace?: ToolWorkspace;
	/** The user's home, for git's user-level config (`~/.gitconfig`). Default: the user's home. */
	homeDir?: string;
}

/** @deprecated Use `ConfinementOptions`. */
export type WorkspaceOptions = ConfinementOptions;

/**
 * The workspace roots, resolved once, and the checks of calls' targets against them. It reads
 * nothing itself: each call's target arrives resolved by the tool's workspace.
 */
export class Confinement {
	private constructor(
		/** The tools' working directory. */
		readonly cwd: string,
		/** Root directories, as given (absolute). */
		readonly roots: readonly string[],
		/** Root directories, real paths, in the same order. */
		readonly realRoots: readonly string[],
		private readonly protectedPatterns: readonly { text: string; pattern: PathPattern }[],
		/** The tools' workspace, which resolves paths a command writes (see `checkWritePath`). */
		private readonly workspace: ToolWorkspace,
		private readonly homeDir: string,
	) {}

	/** The paths git reads or runs for the roots' repositories, as of the last `refreshGitPaths`. */
	private gitPaths: readonly GitNamedPath[] = [];

	/** The files the last `refreshGitPaths` read: the next one asks for them all at once (see `gitNamedPaths`). */
	private readonly gitReadPlan = new Set<string>();

	/**
	 * Reads again where the roots' repositories' git config points (hooks folders, includes), so
	 * that a write there counts as protected; call before judging writes. A remote workspace's
	 * user-level config is on the remote host, and only its repository's files are read. Nothing
	 * is taken from an earlier look but which files to ask for: their content is read each time,
	 * all at once (one round trip on a remote workspace), so no answer can be stale.
	 */
	async refreshGitPaths(): Promise<void> {
		const remote = typeof (this.workspace as { urlOf?: unknown }).urlOf === "function";
		this.gitPaths = await gitNamedPaths(
			this.realRoots,
			this.workspace.files,
			{ homeDir: this.homeDir, env: process.env, repositoryOnly: remote },
			this.gitReadPlan,
		);
	}

	/** Resolves the roots (they must exist) and compiles the protected patterns. */
	static async create(options: ConfinementOptions): Promise<Confinement> {
		const cwd = resolve(options.cwd);
		const workspace = options.workspace ?? createLocalWorkspace(cwd);
		const roots = [...new Set((options.roots ?? [cwd]).map((root) => resolve(cwd, root)))];
		const realRoots = await Promise.all(
			roots.map((root) =>
				workspace.files.realpath(root).catch(() => {
					throw new Error(`Workspace root ${root} does not exist or cannot be resolved.`);
				}),
			),
		);
		const patterns = (options.protectedPatterns ?? defaultProtectedPatterns).map((text) => ({
			text,
			pattern: compilePathPattern(text, { root: "/", homeDir: "/" }),
		}));
		return new Confinement(cwd, roots, realRoots, patterns, workspace, options.homeDir ?? homedir());
	}

	/** Checks where a call's target points. Undefined for a target without a path. No I/O. */
	checkTarget(target: ToolTarget | undefined): PathCheck | undefined {
		if (!isWorkspaceTarget(target) || target.path === undefined) return undefined;
		const lexicalPath = target.resolved?.absolutePath ?? target.workspace.lexicalPath(target.path);
		// A path that could not be resolved is judged as written; the tool fails on the same error.
		const realPath = target.resolved?.realPath ?? lexicalPath;
		const check: PathCheck = { lexicalPath, realPath };
		const index = this.realRoots.findIndex((root) => relativeInside(root, realPath) !== undefined);
		if (index === -1) return check;
		check.root = this.realRoots[index];
		if (target.access === "write") check.protectedBy = this.protectedPattern(index, check);
		return check;
	}

	/**
	 * Checks a path a command writes (a redirection target), resolved by the same workspace the
	 * tools use, as a `write` call of that path would be checked.
	 */
	async checkWritePath(path: string): Promise<PathCheck | undefined> {
		await this.refreshGitPaths();
		return this.checkTarget(await this.workspace.resolveTarget({ access: "write", path }, { nearMiss: false }));
	}

	/**
	 * Why a write of `path` must not happen without a question, or undefined when it may: its real
	 * path (links followed as they are now) lies outside every root, or it is a protected path.
	 * For writes nobody can be asked about, such as undo's restores (see `RestoreGuard` of
	 * checkpoints): no allow rule opens a protected path here. Resolves a reason, never throws.
	 */
	async refusalOfWrite(path: string): Promise<string | undefined> {
		try {
			const check = await this.checkWritePath(path);
			if (!check?.root) {
				const via = check && check.realPath !== path ? ` (it now leads to ${check.realPath})` : "";
				return `outside the workspace ${this.roots.join(", ")}${via}`;
			}
			if (check.protectedBy === undefined) return undefined;
			const via = check.realPath !== path ? `it now leads to ${check.realPath}, ` : "";
			return `${via}a protected path (${check.protectedBy}): files there run later; put it back by hand if you meant to`;
		} catch (error) {
			return `could not be judged: ${error instanceof Error ? error.message : String(error)}`;
		}
	}

	/**
	 * Checks a path a command reads, as a `read` call of that path would be checked; undefined
	 * when it cannot be resolved (a missing file is judged by the command's own error, not here).
	 */
	async checkReadPath(path: string): Promise<PathCheck | undefined> {
		try {
			return this.checkTarget(await this.workspace.resolveTarget({ access: "read", path }, { nearMiss: false }));
		} catch {
			return undefined;
		}
	}

	private protectedPattern(index: number, check: PathCheck): string | undefined {
		const views = [relativeInside(this.realRoots[index] as string, check.realPath)];
		const lexicalRoot = this.roots[index];
		if (lexicalRoot !== undefined) views.push(relativeInside(lexicalRoot, check.lexicalPath));
		for (const { text, pattern } of this.protectedPatterns) {
			if (views.some((view) => view !== undefined && view !== "" && pattern.test(view))) return text;
		}
		const named = this.gitPaths.find(
			({ path }) =>
				relativeInside(path, check.realPath) !== undefined || relativeInside(path, check.lexicalPath) !== undefined,
		);
		return named ? `${named.label}: ${named.path}` : undefined;
	}

	/** The message for a call that points outside every root, written for the model. */
	outsideMessage(toolName: string, check: PathCheck): string {
		const via = check.realPath === check.lexicalPath ? "" : ` (it resolves to ${check.realPath})`;
		const roots = this.roots.join(", ");
		return (
			`Access denied: ${toolName} may not touch ${check.lexicalPath}${via}, because it is outside the workspace (${roots}). ` +
			"File tools only work inside the workspace. Use a path inside it, or ask the user to add that directory as a workspace root."
		);
	}
}

/** @deprecated Use `Confinement` (the tools' `Workspace` is what resolves paths now). */
export const Workspace = Confinement;
/** @deprecated Use `Confinement`. */
export type Workspace = Confinement;

/**
 * A hook that blocks calls whose target's real path lies outside every workspace root (any tool
 * that declares a path target: reads, writes, listings and searches, including the default `.`),
 * and confines the rest: the tool then checks the objects it really opens against the roots, so a
 * symlink swapped after this check cannot move the call outside. It does not confine the shell:
 * commands run by bash can touch anything the user can; the sandbox confines those.
 */
export function createConfinementHook(confinement: Confinement): ToolHooks {
	return {
		beforeToolCall: ({ tool, target }) => {
			// A call on several files (apply_patch) is judged file by file: one outside refuses it whole.
			const parts = partsOfTarget(target);
			let confined = false;
			for (const part of parts) {
				const check = confinement.checkTarget(part);
				if (!check) continue;
				if (check.root === undefined) return { block: true, reason: confinement.outsideMessage(tool.name, check) };
				if (isWorkspaceTarget(part)) part.confinedTo = confinement.realRoots;
				confined = true;
			}
			if (confined && isWorkspaceTarget(target)) target.confinedTo = confinement.realRoots;
			return undefined;
		},
	};
}
