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
	/** The hunk's lines, in order. */
	lines: HunkLine[];
	/** Marked `*** End of File`: the hunk's lines end the file. */
	endOfFile: boolean;
	/** 1-based number of the hunk within its file, for messages. */
	number: number;
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
 * The patch text with the wrappers models put around it removed: a code fence, a shell heredoc
 * (`apply_patch <<'EOF'` … `EOF`), CRLF line breaks, blank lines around it.
 */
function unwrap(text: string): string[] {
	let lines = text.replace(/\r\n?/g, "\n").split("\n");
	const trimBlank = () => {
		while (lines.length > 0 && (lines[0] as string).trim() === "") lines.shift();
		while (lines.length > 0 && (lines[lines.length - 1] as string).trim() === "") lines.pop();
	};
	trimBlank();
	for (let pass = 0; pass < 2; pass++) {
		const first = (lines[0] ?? "").trim();
		const last = (lines[lines.length - 1] ?? "").trim();
		if (/^```[\w-]*$/.test(first)) {
			lines = lines.slice(1, last === "```" ? -1 : undefined);
		} else {
			const heredoc = /<<\s*['"]?([A-Za-z_]\w*)['"]?\s*$/.exec(first);
			if (!heredoc) break;
			lines = lines.slice(1, last === heredoc[1] ? -1 : undefined);
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
		private readonly lines: readonly string[],
		start: number,
	) {
		this.index = start;
	}

	private get line(): string | undefined {
		return this.lines[this.index];
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
		while (content.length > 0 && content[content.length - 1] === "" && this.lines[this.index - 1] === "") content.pop();
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
		const hunk: PatchHunk = { anchors: [], lines: [], endOfFile: false, number };
		// Consecutive @@ lines narrow the place down (a class, then a method in it).
		while (this.line?.startsWith("@@")) {
			const unified = UNIFIED_HEADER.exec(this.line);
			const anchor = (unified ? (unified[1] ?? "") : this.line.slice(2)).trim();
			if (anchor !== "" && anchor !== "@@") hunk.anchors.push(anchor);
			this.index++;
		}
		while (!this.atSectionEnd()) {
			const line = this.line as string;
			if (line.startsWith("@@") && hunk.lines.length > 0) break;
			if (line.trim() === END_OF_FILE) {
				hunk.endOfFile = true;
				this.index++;
				break;
			}
			const marker = line[0];
			if (marker === " " || marker === "-" || marker === "+") hunk.lines.push({ kind: marker, text: line.slice(1) });
			else if (line === "")
				hunk.lines.push({ kind: " ", text: "" }); // An empty context line whose space was lost.
			else throw this.fail("a hunk line starts with ' ' (context), '-' (remove) or '+' (add)");
			this.index++;
		}
		if (hunk.lines.every((line) => line.kind === " ")) {
			throw this.fail(`hunk ${number} changes nothing (it has no '-' or '+' line)`);
		}
		return hunk;
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
		if (lines.some((line) => FILE_HEADER.test(line.trim()))) {
			const first = lines.findIndex((line) => FILE_HEADER.test(line.trim()));
			return new PatchReader(lines, first).read();
		}
		throw malformed(1, lines[0] ?? "", `the patch does not start with ${BEGIN}`);
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
