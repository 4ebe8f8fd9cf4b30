// TOML read by `smol-toml` (pure JavaScript, loaded at the first TOML file). It stops at the first
// error, which is enough to refuse a change: an error the file did not have before is new.
import { MAX_PROBLEMS, type SyntaxReading } from "../problems.js";

type SmolToml = typeof import("smol-toml");
let toml: Promise<SmolToml> | undefined;

/** The offset of a 1-based line and column, clamped to the text. */
function offsetOf(text: string, line: number, column: number): number {
	let start = 0;
	for (let current = 1; current < line; current++) {
		const next = text.indexOf("\n", start);
		if (next === -1) break;
		start = next + 1;
	}
	return Math.min(text.length, start + Math.max(0, column - 1));
}

/** Parses a TOML text and lists its error (one at most: the parser stops there). */
export async function readToml(text: string): Promise<SyntaxReading> {
	toml ??= import("smol-toml");
	const { parse, TomlError } = await toml;
	try {
		parse(text);
		return { problems: [], incomplete: false };
	} catch (error) {
		if (!(error instanceof TomlError) || MAX_PROBLEMS < 1) throw error;
		const offset = offsetOf(text, error.line, error.column);
		// The message's first line is the description; the rest is the parser's own excerpt.
		const description = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
		return {
			problems: [{ line: error.line, column: error.column, offset, end: offset, description }],
			incomplete: false,
		};
	}
}
