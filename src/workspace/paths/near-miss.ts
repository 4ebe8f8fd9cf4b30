import { basename, dirname, join, sep } from "node:path";
import { type FileInfo, type FileOperations, infoIfExists } from "../files/contract.js";
import { displayPath, resolveToolPath } from "./paths.js";
import { explainLoop } from "./special-file-messages.js";
import { nameFromVisible } from "./visible-name.js";

/** Spaces other than U+0020 that models and operating systems put into names (NBSP, thin, narrow NBSP, …). */
const UNICODE_SPACES = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;

/** macOS screenshot names put a narrow no-break space (U+202F) before AM/PM; models type a plain space. */
const SPACE_BEFORE_MERIDIEM = / (AM|PM)(?=\.[^./]+$|$)/gi;

/** A name of printable ASCII only (checked before the normalizations, which cost more than the look-ups they save). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** `SPACE_BEFORE_MERIDIEM` without the global flag, so `test` keeps no state. */
const SPACE_BEFORE_MERIDIEM_TEST = / (AM|PM)(?=\.[^./]+$|$)/i;

/** How a path argument was matched to an existing file. */
export type PathMatch = "exact" | "variant" | "folder-scan";

/** The outcome of `resolveExistingPath`. */
export interface ResolvedPath {
	/** The absolute path to use: the existing near-miss when one was found, else the literal path. */
	absolutePath: string;
	/** Facts about the path (symlinks followed), when it exists. */
	info: FileInfo | undefined;
	/** How it was found, or undefined when nothing exists there. */
	match: PathMatch | undefined;
}

/** `ResolvedPath` and what the look-up saw of the name itself, for the workspace's next step. */
export interface LookedUpPath extends ResolvedPath {
	/**
	 * What the name at `absolutePath` itself is (links not followed), as the look-up saw it: null
	 * when nothing is there; absent when the look-up did not look at that name itself. Lets
	 * `realPathOf` start from it instead of looking again.
	 */
	own?: FileInfo | null;
}

/** The forms a name can take when the model's spelling differs only invisibly from the disk's. */
export function pathVariants(path: string): string[] {
	// Printable ASCII has no other Unicode form and no Unicode space; only the screenshot rule applies to it.
	if (PRINTABLE_ASCII.test(path) && !SPACE_BEFORE_MERIDIEM_TEST.test(path)) return [];
	const plainSpaces = path.replace(UNICODE_SPACES, " ");
	const screenshot = plainSpaces.replace(SPACE_BEFORE_MERIDIEM, "\u202f$1");
	const variants = new Set<string>();
	for (const candidate of [path, plainSpaces, screenshot]) {
		variants.add(candidate);
		variants.add(candidate.normalize("NFC"));
		variants.add(candidate.normalize("NFD"));
	}
	variants.delete(path);
	return [...variants];
}

/**
 * The ASCII characters another name can turn into under `visibleKey`: a plain space (from the
 * Unicode spaces) and the NFC singletons KELVIN SIGN → K, GREEK QUESTION MARK → ;, GREEK VARIA → `
 * (found by checking every code point). An ASCII name without them has no look-alike but itself.
 */
const LOOK_ALIKE_TARGETS = /[^\x20-\x7e]|[ ;K`]/;

/** The options of a look-up of the name itself (one object for every call). */
const NO_FOLLOW = { noFollow: true } as const;

function mayHaveLookAlike(visibleName: string): boolean {
	return LOOK_ALIKE_TARGETS.test(visibleName);
}

/** A name reduced to what a reader sees: composed characters, every kind of space a plain one. */
function visibleKey(name: string): string {
	return name.normalize("NFC").replace(UNICODE_SPACES, " ");
}

/**
 * Resolves a tool's path argument to an existing file when one matches: first the literal path,
 * then the path without surrounding whitespace or a leading `@`, then the name its escapes stand
 * for when it is written as results show names (`visibleName`), then Unicode variants (NFC/NFD, Unicode spaces as plain spaces, the macOS screenshot U+202F
 * before AM/PM), then a scan of the folder for the one entry that looks the same. When nothing
 * matches, returns the literal path without surrounding whitespace, with `match: undefined`
 * (a write creates it there).
 */
export async function resolveExistingPath(
	cwd: string,
	path: string,
	operations: FileOperations,
): Promise<ResolvedPath> {
	const { absolutePath, info, match } = await lookUpExistingPath(cwd, path, operations);
	return { absolutePath, info, match };
}

/** `resolveExistingPath`, also saying what it saw of the name itself (`LookedUpPath.own`). */
export async function lookUpExistingPath(cwd: string, path: string, operations: FileOperations): Promise<LookedUpPath> {
	const absolutePath = resolveToolPath(cwd, path);
	// The name itself first: nearly always a file or nothing, and then it is what `stat` would say.
	// Only a link is followed (a dangling one is treated as nothing there, as `stat` sees it).
	// Awaited in a `try` rather than through `.catch`: no closure and extra promise per call.
	let own: FileInfo | null;
	let exact: FileInfo | null | undefined;
	try {
		own = (await infoIfExists(operations, absolutePath, NO_FOLLOW)) ?? null;
		exact = own?.kind === "symlink" ? await infoIfExists(operations, absolutePath) : own;
	} catch (error) {
		throw explainLoop(error, displayPath(cwd, absolutePath), "open");
	}
	if (exact) return { absolutePath, info: exact, match: "exact", own };
	const trimmed = path.trim();
	// Models paste paths with a trailing newline or space, or with the `@` of a file mention.
	const sloppy =
		trimmed === path && trimmed.charCodeAt(0) !== 0x40
			? []
			: [trimmed, trimmed.replace(/^@/, "")]
					.filter((candidate) => candidate !== path && candidate !== "")
					.map((candidate) => resolveToolPath(cwd, candidate));
	// A name given back as results showed it, escapes and all (`a\nb.txt` for a name holding a newline).
	const unescaped = sep === "/" ? nameFromVisible(absolutePath) : undefined;
	const shown = unescaped !== undefined ? [unescaped] : [];
	const variants = pathVariants(absolutePath);
	// Nearly always none (a plain name that is not there yet): no list is made.
	const candidates =
		sloppy.length + shown.length + variants.length === 0 ? [] : [...new Set([...sloppy, ...shown, ...variants])];
	for (const variant of candidates) {
		const info = await infoIfExists(operations, variant);
		if (info) return { absolutePath: variant, info, match: "variant" };
	}
	const folder = dirname(absolutePath);
	const name = basename(absolutePath);
	// Printable ASCII is its own visible key (no other form, no Unicode space).
	const wanted = PRINTABLE_ASCII.test(name) ? name : visibleKey(name);
	// Skips reading the folder (a write of 1,000 new files into one folder read it 1,000 times) when no other name can look the same.
	const names = mayHaveLookAlike(wanted) ? await entryNames(operations, folder) : [];
	const matches = names.filter((name) => visibleKey(name) === wanted);
	if (matches.length === 1 && matches[0] !== undefined) {
		const candidate = join(folder, matches[0]);
		const info = await infoIfExists(operations, candidate);
		if (info) return { absolutePath: candidate, info, match: "folder-scan" };
	}
	// A name that starts or ends with whitespace is a pasting slip, never meant: `write` of
	// " /tmp/x" or "new.ts\n" creates /tmp/x and new.ts, not a folder named " " or a name with a newline.
	if (trimmed === "" || trimmed === path) return { absolutePath, info: undefined, match: undefined, own };
	return { absolutePath: resolveToolPath(cwd, trimmed), info: undefined, match: undefined };
}

async function entryNames(operations: FileOperations, folder: string): Promise<string[]> {
	try {
		return (await operations.readdir(folder)).map((entry) => entry.name);
	} catch {
		return [];
	}
}

/** Edit distance between two short strings (insert, delete, substitute), capped work for long names. */
export function editDistance(a: string, b: string): number {
	if (Math.abs(a.length - b.length) > 8) return Number.POSITIVE_INFINITY;
	let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
		}
		previous = current;
	}
	return previous[b.length] ?? 0;
}

function stem(name: string): string {
	const dot = name.lastIndexOf(".");
	return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * Names in the folder of `absolutePath` that the caller may have meant: the same name in another
 * case or Unicode form, the same name with another extension, or a name a few typos away.
 * Best first, at most `max` (default 3). Empty when the folder does not exist.
 */
export async function similarNames(operations: FileOperations, absolutePath: string, max = 3): Promise<string[]> {
	const wanted = visibleKey(basename(absolutePath)).toLowerCase();
	const wantedStem = stem(wanted);
	const scored: { name: string; score: number }[] = [];
	for (const name of await entryNames(operations, dirname(absolutePath))) {
		const key = visibleKey(name).toLowerCase();
		let score: number;
		if (key === wanted) score = 0;
		else if (stem(key) === wantedStem) score = 1;
		else {
			const distance = editDistance(key, wanted);
			if (distance > Math.max(2, Math.floor(wanted.length / 4))) continue;
			score = 1 + distance;
		}
		scored.push({ name, score });
	}
	scored.sort((left, right) => left.score - right.score || (left.name < right.name ? -1 : 1));
	return scored.slice(0, max).map((entry) => join(dirname(absolutePath), entry.name));
}
