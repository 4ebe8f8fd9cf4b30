import { readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** The ignore files the search honours, highest precedence first (as ripgrep ranks them). */
export const IGNORE_FILE_NAMES = [".rgignore", ".ignore", ".gitignore", ".git/info/exclude"] as const;

/** Reads a text file; rejects when it cannot (a missing ignore file is then simply absent). */
export type ReadText = (absolutePath: string) => Promise<string>;

const readLocalText: ReadText = (absolutePath) => readFile(absolutePath, "utf8");

/** The ignore file a folder holding a `.git` folder has in it (a repository's local excludes). */
export const GIT_EXCLUDE = ".git/info/exclude";

interface Level {
	/** How a path relative to the search root reads relative to this level's folder. */
	prefix: string;
	/** Only paths under this root-relative folder are subject to the level ('' = all). */
	scope: string;
	/** One matcher per entry of IGNORE_FILE_NAMES (undefined when that file is absent). */
	matchers: (Ignore | undefined)[];
}

/**
 * The ignore rules in force for one folder of a walk: its own ignore files plus those of every
 * folder above it, up to the file-system root (ripgrep with `--no-require-git` reads them all).
 * Precedence follows ripgrep: .rgignore over .ignore over .gitignore, and within one kind the
 * deepest folder wins; a `!` rule re-includes.
 */
export class IgnoreRules {
	private constructor(
		private readonly levels: readonly Level[],
		private readonly readText: ReadText,
	) {}

	/**
	 * Rules for the search root: the ignore files of the root and of every folder above it, read
	 * with `readText` (default: from the local disk).
	 */
	static async forRoot(root: string, readText: ReadText = readLocalText): Promise<IgnoreRules> {
		const folders: string[] = [];
		for (let folder = root; ; folder = dirname(folder)) {
			folders.push(folder);
			if (dirname(folder) === folder) break;
		}
		const levels: Level[] = [];
		for (const folder of folders.reverse()) {
			const matchers = await readMatchers(folder, IGNORE_FILE_NAMES, readText);
			if (!matchers.some(Boolean)) continue;
			const fromFolder = relative(folder, root).split(sep).join("/");
			levels.push({ prefix: fromFolder === "" ? "" : `${fromFolder}/`, scope: "", matchers });
		}
		return new IgnoreRules(levels, readText);
	}

	/** Rules for a sub-folder (`relativeFolder` from the root) that holds the named ignore files. */
	async enter(absoluteFolder: string, relativeFolder: string, present: readonly string[]): Promise<IgnoreRules> {
		if (present.length === 0) return this;
		const matchers = await readMatchers(absoluteFolder, present, this.readText);
		if (!matchers.some(Boolean)) return this;
		return new IgnoreRules([...this.levels, { prefix: "", scope: `${relativeFolder}/`, matchers }], this.readText);
	}

	/** True when the root-relative path is ignored (directories are tested as `name/`). */
	ignores(relativePath: string, isDirectory: boolean): boolean {
		for (let kind = 0; kind < IGNORE_FILE_NAMES.length; kind++) {
			for (let index = this.levels.length - 1; index >= 0; index--) {
				const level = this.levels[index] as Level;
				const matcher = level.matchers[kind];
				if (!matcher) continue;
				const local = `${level.prefix}${relativePath.slice(level.scope.length)}${isDirectory ? "/" : ""}`;
				const result = testOwnRules(matcher, local);
				if (result.ignored) return true;
				if (result.unignored) return false;
			}
		}
		return false;
	}
}

async function readMatchers(
	folder: string,
	names: readonly string[],
	readText: ReadText,
): Promise<(Ignore | undefined)[]> {
	return Promise.all(
		IGNORE_FILE_NAMES.map(async (name) => {
			if (!names.includes(name)) return undefined;
			try {
				const text = await readText(join(folder, name));
				return ignore({ allowRelativePaths: true }).add(text);
			} catch {
				return undefined;
			}
		}),
	);
}

interface RuleManager {
	test?: (path: string, mode: string) => { ignored: boolean; unignored: boolean };
}

/**
 * Tests a path against a matcher's own rules only. `Ignore#test` also treats a path as ignored
 * when a parent folder is, and caches every path it saw. Both are wrong for a walk: ripgrep
 * judges each entry by itself (pruned folders are never entered anyway), so a search started
 * inside an ignored folder still finds its files, and a cache per path would grow with the tree.
 * The per-rule test is internal to `ignore` (pinned at 7.0.17); without it we fall back to `test`.
 */
function testOwnRules(matcher: Ignore, path: string): { ignored: boolean; unignored: boolean } {
	const manager = (matcher as unknown as { _rules?: RuleManager })._rules;
	if (typeof manager?.test === "function") return manager.test(path, "regex");
	return matcher.test(path);
}
