import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { ToolHooks } from "../engine/types.js";
import { toolTargetPath } from "../tools/fs/near-miss.js";
import { compilePathPattern, type PathPattern, relativeInside } from "./path-pattern.js";
import { pathTools } from "./rules.js";

/** Paths inside the workspace that `write` and `edit` may touch only with an explicit allow rule. */
export const defaultProtectedPatterns: readonly string[] = [".git", ".toolbelt", ".env*"];

/** Tools that change files, and so are subject to protected paths. */
const writingTools = new Set(["write", "edit"]);

/**
 * The real path of `path`, also for a file that does not exist yet: the realpath of its deepest
 * existing ancestor plus the rest. A dangling symlink is followed to where it points, since
 * writing through it would create its target.
 */
export async function resolveRealPath(path: string): Promise<string> {
	let current = resolve(path);
	const rest: string[] = [];
	for (let hops = 0; hops < 64; hops++) {
		try {
			const real = await realpath(current);
			return rest.length === 0 ? real : join(real, ...[...rest].reverse());
		} catch {
			const link = await lstat(current).catch(() => undefined);
			if (link?.isSymbolicLink()) {
				current = resolve(dirname(current), await readlink(current));
				continue;
			}
			const parent = dirname(current);
			if (parent === current) return resolve(path);
			rest.push(basename(current));
			current = parent;
		}
	}
	// A symlink loop: nothing real lies behind it; judge the path as written.
	return resolve(path);
}

/** Where a file tool call points, and how that relates to the workspace. */
export interface PathCheck {
	/** The path as the tool will resolve it (`~` expanded, relative to cwd, near-miss names found as the tool finds them). */
	lexicalPath: string;
	/** Its real path (symlinks resolved, also for a file not created yet). */
	realPath: string;
	/** The workspace root (real path) that contains it, or undefined when it lies outside every root. */
	root?: string;
	/** The protected pattern it falls under (`.git`, `.toolbelt`, `.env*`), for write and edit only. */
	protectedBy?: string;
}

/** Options of `Workspace.create`. */
export interface WorkspaceOptions {
	/** The working directory of the tools: relative paths are taken from here. */
	cwd: string;
	/** Directories the file tools may touch. Default: `[cwd]`. */
	roots?: readonly string[];
	/** Gitignore-style patterns (relative to each root) that write and edit need an explicit allow rule for. Default: `.git`, `.toolbelt`, `.env*`. */
	protectedPatterns?: readonly string[];
}

/** The workspace roots, resolved once, and the path checks of file tool calls against them. */
export class Workspace {
	private constructor(
		/** The tools' working directory. */
		readonly cwd: string,
		/** Root directories, as given (absolute). */
		readonly roots: readonly string[],
		/** Root directories, real paths, in the same order. */
		readonly realRoots: readonly string[],
		private readonly protectedPatterns: readonly { text: string; pattern: PathPattern }[],
	) {}

	/** Resolves the roots (they must exist) and compiles the protected patterns. */
	static async create(options: WorkspaceOptions): Promise<Workspace> {
		const cwd = resolve(options.cwd);
		const roots = [...new Set((options.roots ?? [cwd]).map((root) => resolve(cwd, root)))];
		const realRoots = await Promise.all(
			roots.map((root) =>
				realpath(root).catch(() => {
					throw new Error(`Workspace root ${root} does not exist or cannot be resolved.`);
				}),
			),
		);
		const patterns = (options.protectedPatterns ?? defaultProtectedPatterns).map((text) => ({
			text,
			pattern: compilePathPattern(text, { root: "/", homeDir: "/" }),
		}));
		return new Workspace(cwd, roots, realRoots, patterns);
	}

	/** The path argument of a file tool call (`path`, defaulting to `.` for ls, grep and find), or undefined for other tools. */
	static pathArgument(toolName: string, args: Record<string, unknown>): string | undefined {
		if (!pathTools.has(toolName)) return undefined;
		const path = args.path;
		if (typeof path === "string" && path.trim() !== "") return path;
		return toolName === "ls" || toolName === "grep" || toolName === "find" ? "." : undefined;
	}

	/** Checks where a file tool call points. Undefined for tools that take no path. */
	check(toolName: string, args: Record<string, unknown>): Promise<PathCheck | undefined> {
		// Confinement and permissions both ask about the same arguments object within one call.
		const cached = this.checks.get(args);
		if (cached?.toolName === toolName && cached.path === args.path) return cached.result;
		const result = this.checkUncached(toolName, args);
		this.checks.set(args, { toolName, path: args.path, result });
		return result;
	}

	private readonly checks = new WeakMap<
		object,
		{ toolName: string; path: unknown; result: Promise<PathCheck | undefined> }
	>();

	private async checkUncached(toolName: string, args: Record<string, unknown>): Promise<PathCheck | undefined> {
		const argument = Workspace.pathArgument(toolName, args);
		if (argument === undefined) return undefined;
		const lexicalPath = await toolTargetPath(this.cwd, argument);
		const realPath = await resolveRealPath(lexicalPath);
		const check: PathCheck = { lexicalPath, realPath };
		const index = this.realRoots.findIndex((root) => relativeInside(root, realPath) !== undefined);
		if (index === -1) return check;
		check.root = this.realRoots[index];
		if (writingTools.has(toolName)) {
			const views = [relativeInside(this.realRoots[index] as string, realPath)];
			const lexicalRoot = this.roots[index];
			if (lexicalRoot !== undefined) views.push(relativeInside(lexicalRoot, lexicalPath));
			for (const { text, pattern } of this.protectedPatterns) {
				if (views.some((view) => view !== undefined && view !== "" && pattern.test(view))) {
					check.protectedBy = text;
					break;
				}
			}
		}
		return check;
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

/**
 * A hook that blocks file tool calls (read, write, edit, ls, grep, find — including the default
 * path `.` of ls, grep and find) whose real path lies outside every workspace root. It does not
 * confine the shell: commands run by bash can touch anything the user can; the sandbox confines those.
 */
export function createConfinementHook(workspace: Workspace): ToolHooks {
	return {
		beforeToolCall: async ({ tool, args }) => {
			const check = await workspace.check(tool.name, args);
			if (check && check.root === undefined) return { block: true, reason: workspace.outsideMessage(tool.name, check) };
			return undefined;
		},
	};
}
