// JSON read by `jsonc-parser` (pure JavaScript, loaded at the first JSON file). Plain `.json` is held
// to strict JSON; the files that tools read as "JSON with comments" (tsconfig, VS Code settings,
// devcontainer, `.jsonc`) may hold comments and trailing commas, so an edit that adds one is not a
// syntax error there. A clean text's reading keeps its tokens, so that the next change can be
// checked by reading only the part of the file it touched (json-regions.ts).
import { lineAndColumn, MAX_PROBLEMS, type SyntaxProblem, type SyntaxReading } from "../problems.js";

type JsoncParser = typeof import("jsonc-parser");
let parser: Promise<JsoncParser> | undefined;
let loaded: JsoncParser | undefined;

/** How a JSON text is held: strict, or with comments and trailing commas. */
export interface JsonOptions {
	comments: boolean;
}

/** What a token is, as the region check needs it: brackets and separators apart, the rest alike. */
export const JsonToken = {
	OpenObject: 1,
	OpenArray: 2,
	Close: 3,
	Comma: 4,
	Colon: 5,
	/** A property name, string, number, `true`, `false` or `null`. */
	Value: 6,
} as const;

/** One of `JsonToken`'s kinds. */
export type JsonTokenKind = (typeof JsonToken)[keyof typeof JsonToken];

/** The tokens of a text in order: `starts[i]`..`ends[i]` (offsets) of kind `kinds[i]`. */
export interface JsonTokens {
	starts: Int32Array;
	ends: Int32Array;
	kinds: Uint8Array;
}

/** A JSON reading; a clean one carries its text's tokens. */
export interface JsonReading extends SyntaxReading {
	tokens?: JsonTokens;
}

/** A growing list of tokens, turned into fixed arrays at the end. */
export class TokenList {
	starts = new Int32Array(256);
	ends = new Int32Array(256);
	kinds = new Uint8Array(256);
	length = 0;

	push(kind: JsonTokenKind, start: number, end: number): void {
		if (this.length === this.starts.length) {
			const size = this.length * 2;
			const grown = { starts: new Int32Array(size), ends: new Int32Array(size), kinds: new Uint8Array(size) };
			grown.starts.set(this.starts);
			grown.ends.set(this.ends);
			grown.kinds.set(this.kinds);
			Object.assign(this, grown);
		}
		this.starts[this.length] = start;
		this.ends[this.length] = end;
		this.kinds[this.length] = kind;
		this.length++;
	}

	done(): JsonTokens {
		return {
			starts: this.starts.slice(0, this.length),
			ends: this.ends.slice(0, this.length),
			kinds: this.kinds.slice(0, this.length),
		};
	}
}

/** A parser's error: its code and where. */
export interface JsonError {
	error: number;
	offset: number;
	length: number;
}

/**
 * Reads `text` with the loaded parser, listing its errors and its tokens (with the depth of
 * brackets each comma was read at, for the region check). Needs `loadJsonParser` first.
 */
export function scanJson(
	text: string,
	options: JsonOptions,
	onComma?: (offset: number, depth: number) => void,
): { errors: JsonError[]; tokens: TokenList } {
	if (!loaded) throw new Error("the JSON parser is not loaded");
	const errors: JsonError[] = [];
	const tokens = new TokenList();
	let depth = 0;
	loaded.visit(
		text,
		{
			onObjectBegin: (offset) => {
				depth++;
				tokens.push(JsonToken.OpenObject, offset, offset + 1);
			},
			onArrayBegin: (offset) => {
				depth++;
				tokens.push(JsonToken.OpenArray, offset, offset + 1);
			},
			onObjectEnd: (offset, length) => {
				depth--;
				// An object left open at the end of the text ends with no brace of its own.
				if (length > 0) tokens.push(JsonToken.Close, offset, offset + length);
			},
			onArrayEnd: (offset, length) => {
				depth--;
				if (length > 0) tokens.push(JsonToken.Close, offset, offset + length);
			},
			onSeparator: (character, offset) => {
				if (character === ",") onComma?.(offset, depth);
				tokens.push(character === "," ? JsonToken.Comma : JsonToken.Colon, offset, offset + 1);
			},
			onObjectProperty: (_name, offset, length) => tokens.push(JsonToken.Value, offset, offset + length),
			onLiteralValue: (_value, offset, length) => tokens.push(JsonToken.Value, offset, offset + length),
			onError: (error, offset, length) => {
				errors.push({ error, offset, length });
			},
		},
		{
			disallowComments: !options.comments,
			allowTrailingComma: options.comments,
			// An empty file is not worth refusing a change over (a file being created, a placeholder).
			allowEmptyContent: true,
		},
	);
	return { errors, tokens };
}

/** Loads the parser (once). */
export async function loadJsonParser(): Promise<void> {
	parser ??= import("jsonc-parser");
	loaded = await parser;
}

/** The parser's error names (`CommaExpected`) as words (`comma expected`). */
function described(name: string): string {
	return name
		.replace(/([a-z])([A-Z])/g, "$1 $2")
		.toLowerCase()
		.replace(/^invalid symbol$/, "unexpected character");
}

/** Parses a JSON text (`comments: true` for JSON with comments and trailing commas) and lists its errors. */
export async function readJson(text: string, options: JsonOptions): Promise<JsonReading> {
	await loadJsonParser();
	const { printParseErrorCode } = loaded as JsoncParser;
	const { errors, tokens } = scanJson(text, options);
	const problems: SyntaxProblem[] = errors.slice(0, MAX_PROBLEMS).map(({ error, offset, length }) => ({
		...lineAndColumn(text, offset),
		offset,
		end: offset + length,
		description: described(printParseErrorCode(error as Parameters<typeof printParseErrorCode>[0])),
	}));
	return { problems, incomplete: false, ...(problems.length === 0 ? { tokens: tokens.done() } : {}) };
}
