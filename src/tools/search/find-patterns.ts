import { isAbsolute, relative, resolve } from "node:path";
import { ToolError } from "../../engine/index.js";
import type { SearchOperations } from "../../workspace/index.js";

/** Characters that make a name a glob rather than a plain path. */
const GLOB_SYNTAX = /[[\]{}()*?!+@]/;

function otherCase(char: string): string {
	const lower = char.toLowerCase();
	return lower === char ? char.toUpperCase() : lower;
}

function isLetter(char: string): boolean {
	return char.toLowerCase() !== char.toUpperCase();
}

/**
 * Whether a find matches case exactly: as asked, else smart case (as ripgrep's `-S`): exact
 * when the pattern holds an upper-case letter, ignoring case when it is all lower case.
 */
export function findIsCaseSensitive(pattern: string, asked: boolean | undefined): boolean {
	return asked ?? pattern !== pattern.toLowerCase();
}

/** The items of a `[...]` class body with the other case of every letter (and letter range) added. */
function caseFoldClass(body: string): string {
	let out = "";
	let index = 0;
	if (body[0] === "!" || body[0] === "^") {
		out += body[0];
		index = 1;
	}
	while (index < body.length) {
		const char = body[index] as string;
		if (char === "\\" && index + 1 < body.length) {
			out += body.slice(index, index + 2);
			index += 2;
			continue;
		}
		if (body[index + 1] === "-" && index + 2 < body.length) {
			const end = body[index + 2] as string;
			out += `${char}-${end}`;
			if (isLetter(char) && isLetter(end)) out += `${otherCase(char)}-${otherCase(end)}`;
			index += 3;
			continue;
		}
		out += isLetter(char) ? char + otherCase(char) : char;
		index++;
	}
	return out;
}

/**
 * The same glob matching without regard to case, spelled with character classes (`a` → `[aA]`),
 * so every backend (ripgrep's globs and the walker's) applies it the same way.
 */
export function caseInsensitiveGlob(glob: string): string {
	let out = "";
	for (let index = 0; index < glob.length; index++) {
		const char = glob[index] as string;
		if (char === "\\" && index + 1 < glob.length) {
			out += glob.slice(index, index + 2);
			index++;
		} else if (char === "[") {
			// A `]` right after `[` (or `[!`) belongs to the class.
			let close = index + 1;
			if (glob[close] === "!" || glob[close] === "^") close++;
			if (glob[close] === "]") close++;
			close = glob.indexOf("]", close);
			if (close === -1) return out + glob.slice(index);
			out += `[${caseFoldClass(glob.slice(index + 1, close))}]`;
			index = close;
		} else {
			out += isLetter(char) && otherCase(char).length === 1 ? `[${char}${otherCase(char)}]` : char;
		}
	}
	return out;
}

/**
 * When a glob matched nothing but names an existing file (or folder) literally, as
 * `file[1].txt` or `app/(group)/page.tsx` do, the listing line and a notice saying why; else
 * undefined. Only paths inside the search root are looked at.
 */
export async function literalPathFallback(
	operations: SearchOperations,
	root: string,
	pattern: string,
): Promise<{ path: string; notice: string } | undefined> {
	const name = pattern.trim().replace(/^(\.\/)+/, "");
	if (name === "" || !GLOB_SYNTAX.test(name) || isAbsolute(name)) return undefined;
	const absolute = resolve(root, name);
	const inside = relative(root, absolute);
	if (inside === "" || inside.startsWith("..") || inside.split("/").includes(".git")) return undefined;
	const info = await operations.stat(absolute).catch(() => undefined);
	if (!info) return undefined;
	const kind = info.isDirectory ? "a folder" : "a file";
	const listed = info.isDirectory ? `${inside}/` : inside;
	const brackets = /\[[^\]]*\]/.exec(name)?.[0];
	const why = brackets
		? `in a glob ${brackets} is a character class matching one character, so the pattern does not match its own name`
		: "its name holds glob syntax, so the pattern does not match its own name";
	return {
		path: listed,
		notice:
			`The glob matched nothing, but ${kind} with exactly this name exists and is listed above: ${why}. ` +
			`Pass it as a path to read${info.isDirectory ? " or ls" : ""}, or escape each bracket in a glob as [[] and []].`,
	};
}

/** find's version of a bad-glob error: the shared message suggests grep's `literal`, which find lacks. */
export function findPatternError(error: unknown): unknown {
	if (!(error instanceof ToolError) || !error.message.startsWith("ripgrep rejected the search")) return error;
	const explanation = error.message.split("\n").slice(1, -1).join("\n");
	return new ToolError(
		`The pattern is not a valid glob:\n${explanation}\nClose every [ and {, or escape a bracket meant literally as [[] or []] (e.g. file[[]1[]].txt for file[1].txt), and try again.`,
		error.details,
	);
}
