import { ToolError } from "../../engine/index.js";

/** One line of a hunk: context (` `), removed (`-`) or added (`+`). */
export interface HunkLine {
	kind: " " | "-" | "+";
	text: string;
}

/** One `@@` section of an Update File. */
export interface PatchHunk {
	/** The texts after `@@` (e.g. `def f():`), outermost first: lines to find before the hunk. */
	anchors: string[];
	/** Marked `*** End of File`: the hunk's lines end the file. */
	endOfFile: boolean;
	/** 1-based number of the hunk within its file, for messages. */
	number: number;
	/** The kind of each line, in order, one character each (` `, `-`, `+`). */
	kinds: string;
	/** The context and removed lines, each ended by `\n` (`""` when there are none): what is sought. */
	oldText: string;
	/** The context and added lines, each ended by `\n`: what replaces it. */
	newText: string;
	/** The hunk's lines, in order (made from the fields above on each read). */
	readonly lines: HunkLine[];
}

/**
 * A hunk kept as three strings rather than an object per line: a patch of 300,000 lines held
 * ~100 bytes a line in line objects; the texts are what planning needs, and `lines` is rebuilt
 * from them for the callers that want it.
 */
class CompactHunk implements PatchHunk {
	constructor(
		public anchors: string[],
		public endOfFile: boolean,
		public number: number,
		public kinds: string,
		public oldText: string,
		public newText: string,
	) {}

	get lines(): HunkLine[] {
		const oldLines = this.oldText.split("\n");
		const newLines = this.newText.split("\n");
		let oldIndex = 0;
		let newIndex = 0;
		return [...this.kinds].map((kind) => {
			if (kind === "+") return { kind, text: newLines[newIndex++] as string };
			if (kind === " ") newIndex++;
			return { kind: kind as " " | "-", text: oldLines[oldIndex++] as string };
		});
	}
}

/** Lines ended by `\n` each, or `""` for none. */
function joined(lines: readonly string[]): string {
	return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** One file operation of a patch. */
export type PatchOperation =
	| { kind: "add"; path: string; content: string }
	| { kind: "delete"; path: string }
	| { kind: "update"; path: string; moveTo?: string; hunks: PatchHunk[] };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File:\s*(.*)$/;
const MOVE_TO = /^\*\*\* Move to:\s*(.*)$/;
const END_OF_FILE = "*** End of File";
// A unified-diff range header (`@@ -1,3 +1,4 @@ text`): models copy it from `diff -u`; the numbers are ignored.
const UNIFIED_HEADER = /^@@\s+-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s+@@\s?(.*)$/;

/**
 * The lines of a patch's text without an array of them: where each starts and ends (8 bytes a
 * line), each line sliced when read. A patch of 400,000 lines split whole held ~12 MB of strings
 * before a hunk was read, on top of the text. Lines end at `\n`, `\r\n` or a lone `\r`.
 */
class PatchLines {
	private readonly starts: Uint32Array;
	private readonly ends: Uint32Array;
	/** The range of lines in use: the wrappers and blank lines around the patch are left out. */
	private first = 0;
	private last: number;
	private cachedIndex = -1;
	private cachedLine = "";

	constructor(private readonly text: string) {
		let count = 1;
		for (let index = 0; index < text.length; index++) {
			const code = text.charCodeAt(index);
			if (code === 10 || (code === 13 && text.charCodeAt(index + 1) !== 10)) count++;
		}
		this.starts = new Uint32Array(count);
		this.ends = new Uint32Array(count);
		let line = 0;
		for (let index = 0; index < text.length; index++) {
			const code = text.charCodeAt(index);
			if (code !== 10 && code !== 13) continue;
			this.ends[line] = index;
			if (code === 13 && text.charCodeAt(index + 1) === 10) index++;
			this.starts[++line] = index + 1;
		}
		this.ends[line] = text.length;
		this.last = count;
	}

	/** How many lines are in use. */
	get length(): number {
		return this.last - this.first;
	}

	/** The line at `index` of those in use, or undefined past them. */
	at(index: number): string | undefined {
		if (index < 0 || index >= this.length) return undefined;
		if (index !== this.cachedIndex) {
			const line = this.first + index;
			this.cachedLine = this.text.slice(this.starts[line], this.ends[line]);
			this.cachedIndex = index;
		}
		return this.cachedLine;
	}

	/** Leaves out `head` lines at the start and `tail` at the end. */
	drop(head: number, tail: number): void {
		this.first = Math.min(this.last, this.first + head);
		this.last = Math.max(this.first, this.last - tail);
		this.cachedIndex = -1;
	}

	/** The first line in use at or after `from` for which `test` holds, or -1. */
	findIndex(test: (line: string) => boolean, from = 0): number {
		for (let index = from; index < this.length; index++) if (test(this.at(index) as string)) return index;
		return -1;
	}
}

/**
 * The patch text with the wrappers models put around it removed: a code fence, a shell heredoc
 * (`apply_patch <<'EOF'` … `EOF`), CRLF line breaks, blank lines around it.
 */
function unwrap(text: string): PatchLines {
	const lines = new PatchLines(text);
	const trimBlank = () => {
		while (lines.length > 0 && (lines.at(0) as string).trim() === "") lines.drop(1, 0);
		while (lines.length > 0 && (lines.at(lines.length - 1) as string).trim() === "") lines.drop(0, 1);
	};
	trimBlank();
	for (let pass = 0; pass < 2; pass++) {
		const first = (lines.at(0) ?? "").trim();
		const last = (lines.at(lines.length - 1) ?? "").trim();
		if (/^```[\w-]*$/.test(first)) {
			lines.drop(1, last === "```" && lines.length > 1 ? 1 : 0);
		} else {
			const heredoc = /<<\s*['"]?([A-Za-z_]\w*)['"]?\s*$/.exec(first);
			if (!heredoc) break;
			lines.drop(1, last === heredoc[1] && lines.length > 1 ? 1 : 0);
		}
		trimBlank();
	}
	return lines;
}

function malformed(lineNumber: number, line: string, why: string): ToolError {
	return new ToolError(
		`The patch is malformed at line ${lineNumber} (${JSON.stringify(line.slice(0, 80))}): ${why}. ` +
			`Write it as ${BEGIN}, then *** Add File: / *** Update File: / *** Delete File: sections, then ${END}. ` +
			"In an Update File, each hunk starts with @@ (optionally followed by a line to find first) and every line starts with ' ', '-' or '+'. Nothing was changed.",
		{ reason: "malformed-patch", line: lineNumber },
	);
}

/** Reads lines into the operations of a patch, starting after `*** Begin Patch`. */
class PatchReader {
	private index: number;
	readonly operations: PatchOperation[] = [];

	constructor(
		private readonly lines: PatchLines,
		start: number,
	) {
		this.index = start;
	}

	private get line(): string | undefined {
		return this.lines.at(this.index);
	}

	private fail(why: string): ToolError {
		return malformed(this.index + 1, this.line ?? "", why);
	}

	/** True at `*** End Patch`, the next file header, or the end of the text. */
	private atSectionEnd(): boolean {
		const line = this.line;
		return line === undefined || line.trim() === END || FILE_HEADER.test(line.trim());
	}

	read(): PatchOperation[] {
		while (this.line !== undefined && this.line.trim() !== END) {
			const header = FILE_HEADER.exec(this.line.trim());
			if (!header) {
				if (this.line.trim() === "") {
					this.index++;
					continue;
				}
				throw this.fail("expected *** Add File:, *** Update File:, *** Delete File: or *** End Patch");
			}
			const path = (header[2] ?? "").trim();
			if (path === "") throw this.fail("the file header names no path");
			this.index++;
			if (header[1] === "Add") this.operations.push({ kind: "add", path, content: this.readAdded() });
			else if (header[1] === "Delete") this.operations.push({ kind: "delete", path });
			else this.operations.push(this.readUpdate(path));
		}
		if (this.operations.length === 0) throw this.fail("the patch changes no file");
		return this.operations;
	}

	private readAdded(): string {
		const content: string[] = [];
		while (!this.atSectionEnd()) {
			const line = this.line as string;
			if (line.startsWith("+")) content.push(line.slice(1));
			else if (line === "") content.push("");
			else throw this.fail("every line of an added file starts with '+'");
			this.index++;
		}
		// A blank line between sections is spacing, not content.
		while (content.length > 0 && content[content.length - 1] === "" && this.lines.at(this.index - 1) === "")
			content.pop();
		return content.length === 0 ? "" : `${content.join("\n")}\n`;
	}

	private readUpdate(path: string): PatchOperation {
		const move = MOVE_TO.exec((this.line ?? "").trim());
		let moveTo: string | undefined;
		if (move) {
			moveTo = (move[1] ?? "").trim();
			if (moveTo === "") throw this.fail("*** Move to: names no path");
			this.index++;
		}
		const hunks: PatchHunk[] = [];
		while (!this.atSectionEnd()) hunks.push(this.readHunk(hunks.length + 1));
		if (hunks.length === 0 && moveTo === undefined) {
			throw this.fail(`*** Update File: ${path} has no hunks (give @@ sections, or use *** Move to: to rename)`);
		}
		return { kind: "update", path, moveTo, hunks };
	}

	private readHunk(number: number): PatchHunk {
		const anchors: string[] = [];
		let endOfFile = false;
		// Consecutive @@ lines narrow the place down (a class, then a method in it).
		while (this.line?.startsWith("@@")) {
			const unified = UNIFIED_HEADER.exec(this.line);
			const anchor = (unified ? (unified[1] ?? "") : this.line.slice(2)).trim();
			if (anchor !== "" && anchor !== "@@") anchors.push(anchor);
			this.index++;
		}
		let kinds = "";
		const oldLines: string[] = [];
		const newLines: string[] = [];
		while (!this.atSectionEnd()) {
			const line = this.line as string;
			if (line.startsWith("@@") && kinds.length > 0) break;
			if (line.trim() === END_OF_FILE) {
				endOfFile = true;
				this.index++;
				break;
			}
			const marker = line === "" ? " " : line[0]; // An empty context line whose space was lost.
			if (marker !== " " && marker !== "-" && marker !== "+") {
				throw this.fail("a hunk line starts with ' ' (context), '-' (remove) or '+' (add)");
			}
			const text = line.slice(1);
			kinds += marker;
			if (marker !== "+") oldLines.push(text);
			if (marker !== "-") newLines.push(text);
			this.index++;
		}
		if (!/[-+]/.test(kinds)) {
			throw this.fail(`hunk ${number} changes nothing (it has no '-' or '+' line)`);
		}
		return new CompactHunk(anchors, endOfFile, number, kinds, joined(oldLines), joined(newLines));
	}
}

/**
 * Parses a patch in the `apply_patch` format: `*** Begin Patch`, then sections `*** Add File:`
 * (lines `+…`), `*** Delete File:`, `*** Update File:` (optional `*** Move to:`, then hunks that
 * start with `@@` and an optional line to find first, lines ` `, `-`, `+`, an optional
 * `*** End of File`), then `*** End Patch`. Tolerates what models commonly get wrong: a code fence
 * or heredoc around it, CRLF, a missing `*** End Patch`, unified-diff `@@ -a,b +c,d @@` headers,
 * a first hunk without `@@`, an empty context line without its space. Throws a `ToolError` saying
 * where the text stops making sense.
 */
export function parsePatch(text: string): PatchOperation[] {
	const lines = unwrap(text);
	const start = lines.findIndex((line) => line.trim() === BEGIN);
	if (start === -1) {
		// No Begin line, but file sections: read them anyway.
		const first = lines.findIndex((line) => FILE_HEADER.test(line.trim()));
		if (first !== -1) return new PatchReader(lines, first).read();
		throw malformed(1, lines.at(0) ?? "", `the patch does not start with ${BEGIN}`);
	}
	return new PatchReader(lines, start + 1).read();
}

/** The paths a patch touches, in order (a move's destination after its source). */
export function pathsOfPatch(operations: readonly PatchOperation[]): string[] {
	return operations.flatMap((operation) =>
		operation.kind === "update" && operation.moveTo !== undefined
			? [operation.path, operation.moveTo]
			: [operation.path],
	);
}
