// JSON read by `jsonc-parser` (pure JavaScript, loaded at the first JSON file). Plain `.json` is held
// to strict JSON; the files that tools read as "JSON with comments" (tsconfig, VS Code settings,
// devcontainer, `.jsonc`) may hold comments and trailing commas, so an edit that adds one is not a
// syntax error there.
import { lineAndColumn, MAX_PROBLEMS, type SyntaxProblem, type SyntaxReading } from "../problems.js";

type JsoncParser = typeof import("jsonc-parser");
let parser: Promise<JsoncParser> | undefined;

/** The parser's error names (`CommaExpected`) as words (`comma expected`). */
function described(name: string): string {
	return name
		.replace(/([a-z])([A-Z])/g, "$1 $2")
		.toLowerCase()
		.replace(/^invalid symbol$/, "unexpected character");
}

/** Parses a JSON text (`comments: true` for JSON with comments and trailing commas) and lists its errors. */
export async function readJson(text: string, options: { comments: boolean }): Promise<SyntaxReading> {
	parser ??= import("jsonc-parser");
	const { parse, printParseErrorCode } = await parser;
	const errors: { error: number; offset: number; length: number }[] = [];
	parse(text, errors, {
		disallowComments: !options.comments,
		allowTrailingComma: options.comments,
		// An empty file is not worth refusing a change over (a file being created, a placeholder).
		allowEmptyContent: true,
	});
	const problems: SyntaxProblem[] = errors.slice(0, MAX_PROBLEMS).map(({ error, offset, length }) => ({
		...lineAndColumn(text, offset),
		offset,
		end: offset + length,
		description: described(printParseErrorCode(error as Parameters<typeof printParseErrorCode>[0])),
	}));
	return { problems, incomplete: false };
}
