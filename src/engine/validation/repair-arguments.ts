// Tool-call arguments that are not valid JSON, repaired before validation when the repair is safe.
// Models send trailing commas, single quotes, raw line breaks inside strings, Python's True/None,
// comments, a Markdown fence around the object, a missing closing brace, or the object encoded twice
// as a JSON string. `jsonrepair` (a kept library) fixes those. What it must not fix is arguments cut
// off inside a string (the model's output limit hit mid-`content`): completing the string would
// write a truncated file as if it were whole, so that is refused with the reason.
import { jsonrepair } from "jsonrepair";

/** Arguments read from a model's text: the object, and what was repaired to read it (if anything). */
export interface ReadArguments {
	value: unknown;
	/** One sentence for the model saying what was wrong and how it was read; absent when the JSON was valid. */
	repaired?: string;
}

/** How the text is not valid JSON, as the model should hear it. */
function problemsOf(text: string): string[] {
	const found: string[] = [];
	if (/^\s*```/.test(text)) found.push("a Markdown code fence around the object");
	if (/,\s*[}\]]/.test(text)) found.push("a trailing comma");
	if (/(^|[{,[]\s*)'/.test(text)) found.push("single quotes");
	if (/\b(True|False|None)\b/.test(text)) found.push("Python's True/False/None");
	if (/(^|[^:"])\/\/|\/\*/.test(text)) found.push("a comment");
	return found;
}

/**
 * Whether the text ends inside a string (an opening quote never closed): arguments cut off by the
 * model's output limit. A linear scan of the text.
 */
export function endsInsideString(text: string): boolean {
	let quote: string | undefined;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (quote) {
			if (char === "\\") index++;
			else if (char === quote) quote = undefined;
		} else if (char === '"' || char === "'") quote = char;
	}
	return quote !== undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads a tool call's arguments sent as text. Valid JSON is read as it is (an object encoded twice is
 * read once more). Otherwise the text is repaired when it can be read as one object without guessing
 * its content; the result says what was repaired. Throws an `Error` for the model otherwise.
 */
export function readArgumentsText(text: string): ReadArguments {
	try {
		const value: unknown = JSON.parse(text);
		if (typeof value === "string" && /^\s*\{/.test(value)) {
			const inner = readArgumentsText(value);
			if (isObject(inner.value)) {
				return {
					value: inner.value,
					repaired: "The arguments were an object encoded as a JSON string; read once more. Send plain JSON next time.",
				};
			}
		}
		return { value };
	} catch (error) {
		if (endsInsideString(text)) {
			throw new Error(
				`${(error as Error).message}: the arguments end inside a string, as if cut off (an output limit?). ` +
					"Nothing was run: a cut-off value would be written as if it were whole. Send the call again complete; " +
					"for a long file, write it in parts (write the first part, then edit or append the rest).",
			);
		}
		let repairedText: string;
		try {
			repairedText = jsonrepair(text);
		} catch {
			throw error;
		}
		const value: unknown = JSON.parse(repairedText);
		if (!isObject(value)) throw error;
		const problems = problemsOf(text);
		const what =
			problems.length > 0
				? problems.join(", ")
				: "what JSON does not allow (e.g. a raw line break in a string, a missing closing brace)";
		return {
			value,
			repaired: `The arguments were not valid JSON (${what}); they were repaired and read as the object they spell. Send plain JSON next time.`,
		};
	}
}
