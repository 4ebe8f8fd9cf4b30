import { accessSync, constants, lstatSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";

// The programs toolbelt itself starts outside any sandbox (`perl` for the hook launcher, `bwrap`,
// `unshare`, `ps`, `wc`, `cat` for the output relay, the remote clients) are looked up here, and
// only here. A name looked up on PATH by whoever spawns it would run whatever a sandboxed command
// planted in a PATH folder it may write (a project's `node_modules/.bin`, `./bin`, a relative or
// empty entry meaning the current folder): with toolbelt's rights, outside the sandbox, at the
// next hook, call or start. So the system folders come first (as sudo's `secure_path`), then the
// PATH folders that nothing but root or this user can change and that no sandbox or workspace
// writes: absolute, existing, outside every writable root this process knows of and every temp
// folder, and neither they, their parents nor the program writable by group or others (a folder
// owned by root with the sticky bit excepted: others may add names there but not replace ours).

/** Searched before PATH, in this order (sudo's `secure_path`). */
export const SYSTEM_PROGRAM_FOLDERS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/**
 * Real paths where a sandboxed command (true) or a tool (false: a workspace root) may write: no program
 * is taken from below them, except from a system folder below a workspace root only.
 */
const writableRoots = new Map<string, boolean>();
/** Per folder (as named), its real path when it and every parent may only change by root or this user; null when not. */
const folderVerdicts = new Map<string, string | null>();
/** Per program name, where it was found, for which PATH, and the real folders it was judged by. */
const found = new Map<string, { path: string | undefined; searchPath: string; realFolders: string[] }>();

function realOrResolved(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return resolve(path);
	}
}

function isInside(root: string, path: string): boolean {
	return path === root || path.startsWith(root === sep ? root : root + sep);
}

/**
 * Notes folders where a sandboxed command (`sandbox: true`: a sandbox's writable roots and paths) or
 * a tool (a workspace's roots) of this process may write: from now on no program toolbelt runs is
 * taken from them or from below them, and a program found there earlier is looked up again. Roots are
 * only ever added: a folder once written by a command stays suspect for the rest of the process.
 *
 * A system folder below a workspace root (a workspace at `/`) is still used: the tools there can
 * reach every file anyway, and without `cat` or `unshare` no command would run; below a sandbox's
 * writable root it is not (the sandbox then refuses, saying what it looked for).
 */
export function noteWritableRoots(paths: readonly string[], options: { sandbox?: boolean } = {}): void {
	const sandbox = options.sandbox === true;
	for (const path of paths) {
		const real = realOrResolved(path);
		if (writableRoots.get(real) === true || writableRoots.get(real) === sandbox) continue;
		writableRoots.set(real, sandbox);
		for (const [name, entry] of found) {
			if (entry.realFolders.some((folder) => isInside(real, folder))) found.delete(name);
		}
	}
}

let temps: { named: string; real: string[] } | undefined;

function tempFolders(): string[] {
	const named = tmpdir();
	if (temps?.named !== named) temps = { named, real: [named, "/tmp", "/var/tmp", "/dev/shm"].map(realOrResolved) };
	return temps.real;
}

function writableByOthers(mode: number, uid: number, isFolder: boolean): boolean {
	if ((mode & 0o022) === 0) return false;
	// /tmp's rule: others may add entries but not rename or remove ours, and only root can lift it.
	return !(isFolder && (mode & 0o1000) !== 0 && uid === 0);
}

function ownedByUs(uid: number): boolean {
	return uid === 0 || uid === process.geteuid?.();
}

/** Per real folder: whether it and each of its parents can only be changed by root or this user. */
const chainVerdicts = new Map<string, boolean>();

function onlyOursUpToRoot(realFolder: string): boolean {
	let verdict = chainVerdicts.get(realFolder);
	if (verdict !== undefined) return verdict;
	const info = statSync(realFolder, { throwIfNoEntry: false });
	const parent = dirname(realFolder);
	verdict =
		info?.isDirectory() === true &&
		ownedByUs(info.uid) &&
		!writableByOthers(info.mode, info.uid, true) &&
		(parent === realFolder || onlyOursUpToRoot(parent));
	chainVerdicts.set(realFolder, verdict);
	return verdict;
}

/** The folder's real path when it and each of its parents can only be changed by root or this user; else null. */
function judgeFolder(folder: string): string | null {
	let verdict = folderVerdicts.get(folder);
	if (verdict !== undefined) return verdict;
	verdict = null;
	try {
		const real = realpathSync.native(folder);
		if (onlyOursUpToRoot(real)) verdict = real;
	} catch {
		// Missing or unreadable: nothing is taken from it.
	}
	folderVerdicts.set(folder, verdict);
	return verdict;
}

/** True when nothing a sandboxed command, a tool or a temp file writes can be at `realFolder` (`system`: one of the system folders, or where a link there leads). */
function outOfWritersReach(realFolder: string, temps: readonly string[], system: boolean): boolean {
	for (const [root, sandbox] of writableRoots) if ((sandbox || !system) && isInside(root, realFolder)) return false;
	return !temps.some((temp) => temp !== sep && isInside(temp, realFolder));
}

/** The real folders `candidate` depends on when it is a safe program there, else undefined. */
function judgeProgram(folder: string, candidate: string, temps: readonly string[]): string[] | undefined {
	const system = SYSTEM_PROGRAM_FOLDERS.includes(folder);
	const realFolder = judgeFolder(folder);
	if (realFolder === null || !outOfWritersReach(realFolder, temps, system)) return undefined;
	try {
		// Most names are missing from most folders: no exception for those.
		const entry = lstatSync(candidate, { throwIfNoEntry: false });
		if (entry === undefined) return undefined;
		const info = entry.isSymbolicLink() ? statSync(candidate) : entry;
		if (!info.isFile() || !ownedByUs(info.uid) || writableByOthers(info.mode, info.uid, false)) return undefined;
		accessSync(candidate, constants.X_OK);
		if (!entry.isSymbolicLink()) return [realFolder];
		// A link may lead elsewhere: where it leads must pass the same tests.
		const target = dirname(realpathSync.native(candidate));
		if (target === realFolder) return [realFolder];
		const realTarget = judgeFolder(target);
		if (realTarget === null || !outOfWritersReach(realTarget, temps, system)) return undefined;
		return [realFolder, realTarget];
	} catch {
		return undefined;
	}
}

/** The folders a program is looked for in, in order: the system folders, then PATH's absolute entries. */
export function programFolders(searchPath: string): string[] {
	const folders = [...SYSTEM_PROGRAM_FOLDERS];
	for (const entry of searchPath.split(delimiter)) {
		// A relative or empty entry means a folder that depends on where a command was run: never.
		if (isAbsolute(entry) && !folders.includes(entry)) folders.push(entry);
	}
	return folders;
}

/** Programs given by absolute path (`useProgramPath`): taken as given. */
const configured = new Map<string, string>();

/**
 * Makes toolbelt run `name` from `absolutePath`, taken as given (the user's configuration, as the
 * sandbox's `bwrapPath`): for a system whose program lives where the look-up does not go.
 */
export function useProgramPath(name: string, absolutePath: string): void {
	if (!isAbsolute(absolutePath)) throw new Error(`the path of ${name} must be absolute: ${absolutePath}`);
	configured.set(name, absolutePath);
}

/**
 * The absolute path of the program `name` that toolbelt itself runs (not a command of the model's,
 * which runs in the sandbox): the first in the system folders, then on this process's PATH, that
 * no sandboxed command, tool or other user can have written or can replace (see above). Undefined
 * when there is none. Looked up once per process and name; looked up again when PATH changes or a
 * writable root noted since covers where it was found. `searchPath`: the PATH to search after the
 * system folders. Default: this process's.
 */
export function findTrustedProgram(name: string, searchPath = process.env.PATH ?? ""): string | undefined {
	const given = configured.get(name);
	if (given !== undefined) return given;
	if (process.platform === "win32" || name.includes("/")) return undefined;
	const known = found.get(name);
	if (known && known.searchPath === searchPath) return known.path;
	const temps = tempFolders();
	for (const folder of programFolders(searchPath)) {
		const candidate = join(folder, name);
		const realFolders = judgeProgram(folder, candidate, temps);
		if (realFolders) {
			found.set(name, { path: candidate, searchPath, realFolders });
			return candidate;
		}
	}
	found.set(name, { path: undefined, searchPath, realFolders: [] });
	return undefined;
}

/** Thrown when a program toolbelt needs is in no folder it may take programs from. */
export class ProgramNotFoundError extends Error {
	override name = "ProgramNotFoundError";
}

/**
 * `findTrustedProgram`, or a `ProgramNotFoundError` that says where toolbelt looked and why it
 * does not take a program from PATH's other folders. `purpose` completes "… is needed to …";
 * `givenBy`, where the user can give the program's path instead (e.g. "the --ssh-path flag").
 */
export function requireTrustedProgram(name: string, purpose: string, searchPath?: string, givenBy?: string): string {
	const path = findTrustedProgram(name, searchPath);
	if (path !== undefined) return path;
	throw new ProgramNotFoundError(
		`\`${name}\` is needed to ${purpose}, but none was found in ${SYSTEM_PROGRAM_FOLDERS.join(", ")} or in a PATH folder ` +
			"that toolbelt may run programs from. Programs toolbelt runs itself are never taken from relative or empty PATH entries, " +
			"temp folders, the workspace, a sandbox's writable folders, or folders others can write. Install it in a system folder" +
			(givenBy ? `, or give its path with ${givenBy}.` : "."),
	);
}
