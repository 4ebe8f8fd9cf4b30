/** Where a syntax error is and what it is, as the check reports it. */
export interface SyntaxProblem {
	/** 1-based line of the error's start. */
	line: number;
	/** 1-based column (in UTF-16 code units, as editors count) of the error's start. */
	column: number;
	/** 0-based offset of the error's start in the text (UTF-16 code units). */
	offset: number;
	/** 0-based offset just after the error's end (at least `offset`). */
	end: number;
	/** What is wrong, for the model: `missing ")"`, `unexpected "else"`, or the parser's own words. */
	description: string;
	/**
	 * The syntax node around the error, e.g. `function_declaration "main" (lines 8-20)`; undefined
	 * when the error is at the top level.
	 */
	enclosing?: string;
	/**
	 * For an error region of several lines: where inside it the parser first went wrong (its
	 * `offset` and `end` stay the region's, to tell old errors from new). The check reports this
	 * place unless an older error is there.
	 */
	located?: Omit<SyntaxProblem, "located">;
}

/** What parsing one text found. */
export interface SyntaxReading {
	/** The errors found, in text order (at most `MAX_PROBLEMS`). */
	problems: SyntaxProblem[];
	/** True when parsing was stopped (the time budget) and nothing can be said. */
	incomplete: boolean;
}

/** Most errors collected from one text: enough to tell new errors from old ones in a broken file. */
export const MAX_PROBLEMS = 50;

/** 1-based line and column of an offset (UTF-16 code units) in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
	let line = 1;
	let lineStart = 0;
	for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) {
		line++;
		lineStart = index + 1;
	}
	return { line, column: offset - lineStart + 1 };
}
