// Where git, run later on the host in a repository, reads configuration and finds programs to run:
// the git directories, every config file it reads (with everything they include), every
// hooks folder and every program those name by a path. Written once as steps that ask for file contents, so the sandbox can
// answer them synchronously from this machine's disk and the file tools through their workspace.
import { dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../../workspace/index.js";
import { hooksPathsOf, includedPathsOf, programPathsOf } from "./git-config.js";
import { hookManagerSteps, type ReadSteps } from "./hook-managers.js";

/** What git reads and runs for one repository. Every path is absolute. */
export interface GitLocations {
	/** Git directories outside `<top>/.git` (where a `.git` file points, the common dir of a worktree). */
	gitDirs: string[];
	/** Config files git reads for the repository, including ones that do not exist yet (creating one changes git's behaviour). */
	configFiles: string[];
	/** Hooks folders named by `core.hooksPath` at any level. */
	hooksFolders: string[];
	/** Programs a config of any level names by a path (`core.fsmonitor = tools/fsmonitor.sh`, an alias `!./lint.sh`). */
	programs: string[];
	/** What the hook managers the installed hooks start read (`lefthook.yml`, the programs it names; see `hook-managers.ts`). */
	hookManagerFiles: string[];
	/** Script folders of those managers (`.lefthook`, a nested husky's `.husky`). */
	hookManagerFolders: string[];
}

/** Where the user-level and system-level config files are, as git finds them. */
export interface GitUserContext {
	/** The user's home (`~/.gitconfig`, `~/` in paths). */
	homeDir: string;
	/** The environment git will run with: `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_NOSYSTEM`, `XDG_CONFIG_HOME`. Default: none set. */
	env?: NodeJS.ProcessEnv;
	/** Leave out the user's and the system's files (a remote workspace's are not on this machine). Default: false. */
	repositoryOnly?: boolean;
}

/** The global and system config files git reads (whether they exist or not). */
export function userConfigFiles(context: GitUserContext): string[] {
	if (context.repositoryOnly) return [];
	const env = context.env ?? {};
	const files: string[] = [];
	if (env.GIT_CONFIG_NOSYSTEM === undefined || /^(0|false|no|off)?$/i.test(env.GIT_CONFIG_NOSYSTEM)) {
		files.push(env.GIT_CONFIG_SYSTEM || "/etc/gitconfig");
	}
	if (env.GIT_CONFIG_GLOBAL) files.push(env.GIT_CONFIG_GLOBAL);
	else {
		const xdg = env.XDG_CONFIG_HOME || join(context.homeDir, ".config");
		files.push(join(xdg, "git", "config"), join(context.homeDir, ".gitconfig"));
	}
	return files.map((file) => expandHome(file, context.homeDir)).filter((file) => isAbsolute(file));
}

type Steps<T> = ReadSteps<T>;

function* readConfigTree(files: readonly string[], homeDir: string, seen: Set<string>): Steps<string[]> {
	const texts: string[] = [];
	// git follows includes ten deep; the seen set also ends cycles.
	const queue = files.map((file) => ({ file, depth: 0 }));
	while (queue.length > 0) {
		const { file, depth } = queue.shift() as { file: string; depth: number };
		if (seen.has(file)) continue;
		seen.add(file);
		const text = yield file;
		if (text === undefined) continue;
		texts.push(text);
		if (depth >= 10) continue;
		for (const included of includedPathsOf(text)) {
			const expanded = expandHome(included, homeDir);
			queue.push({ file: resolve(dirname(file), expanded), depth: depth + 1 });
		}
	}
	return texts;
}

function gitPointer(text: string | undefined, file: string): string | undefined {
	const match = text === undefined ? undefined : /^gitdir:\s*(.+?)\s*$/m.exec(text);
	return match?.[1] ? resolve(dirname(file), match[1]) : undefined;
}

/**
 * The steps that find a repository's locations. `dotGit` is `<top>/.git` (a folder, or a file
 * pointing elsewhere); `isFile` says which.
 */
function* gitLocationSteps(top: string, dotGitIsFile: boolean, context: GitUserContext): Steps<GitLocations> {
	const dotGit = join(top, ".git");
	const locations: GitLocations = {
		gitDirs: [],
		configFiles: [],
		hooksFolders: [],
		programs: [],
		hookManagerFiles: [],
		hookManagerFolders: [],
	};
	let gitDir = dotGit;
	if (dotGitIsFile) {
		const pointed = gitPointer(yield dotGit, dotGit);
		if (!pointed) return locations;
		locations.gitDirs.push(pointed);
		gitDir = pointed;
	}
	const common = ((yield join(gitDir, "commondir")) ?? "").trim();
	const commonDir = common ? resolve(gitDir, common) : gitDir;
	if (commonDir !== gitDir) locations.gitDirs.push(commonDir);
	const seen = new Set<string>();
	const repositoryFiles = [join(commonDir, "config"), join(gitDir, "config.worktree")];
	const files = [...userConfigFiles(context), ...repositoryFiles];
	const texts = yield* readConfigTree(files, context.homeDir, seen);
	locations.configFiles.push(...seen);
	for (const hooksPath of texts.flatMap(hooksPathsOf)) {
		const expanded = expandHome(hooksPath, context.homeDir);
		// A relative hooks path is taken from the top of the working tree, where hooks run.
		locations.hooksFolders.push(isAbsolute(expanded) ? resolve(expanded) : resolve(top, expanded));
	}
	for (const program of texts.flatMap(programPathsOf)) {
		const expanded = expandHome(program, context.homeDir);
		locations.programs.push(isAbsolute(expanded) ? resolve(expanded) : resolve(top, expanded));
	}
	// Hooks run from core.hooksPath when one is set, else from the common dir's hooks/: both are read.
	const managed = yield* hookManagerSteps(top, [join(commonDir, "hooks"), ...locations.hooksFolders]);
	locations.hookManagerFiles.push(...managed.files);
	locations.hookManagerFolders.push(...managed.folders);
	return locations;
}

/** Finds a repository's locations, reading files synchronously with `read` (undefined for a file that cannot be read). */
export function gitLocationsSync(
	top: string,
	dotGitIsFile: boolean,
	context: GitUserContext,
	read: (path: string) => string | undefined,
): GitLocations {
	const steps = gitLocationSteps(top, dotGitIsFile, context);
	let next = steps.next();
	while (!next.done) next = steps.next(read(next.value));
	return next.value;
}

/** Finds a repository's locations, reading files with `read` (undefined for a file that cannot be read). */
export async function gitLocations(
	top: string,
	dotGitIsFile: boolean,
	context: GitUserContext,
	read: (path: string) => Promise<string | undefined>,
): Promise<GitLocations> {
	const steps = gitLocationSteps(top, dotGitIsFile, context);
	let next = steps.next();
	while (!next.done) next = steps.next(await read(next.value));
	return next.value;
}
