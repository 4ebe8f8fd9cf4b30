import type { RE2JS } from "re2js";
import { type LineMatcher, stripCr } from "./types.js";

/**
 * Matches with RE2 (re2js): time linear in the text whatever the pattern, so `(a+)+$` over a long
 * line costs what `a+$` costs. It runs synchronously on pieces of at most a read chunk, which
 * keeps the event loop (a cancel, the search's timeout) responsive between pieces.
 */
export class LinearMatcher implements LineMatcher {
	/**
	 * @param line The pattern as compiled for one line.
	 * @param chunk The same pattern in multiline mode (`^` and `$` at every line), for testing many lines at once.
	 */
	constructor(
		private readonly line: RE2JS,
		private readonly chunk: RE2JS,
	) {}

	async firstMatches(text: string): Promise<number[] | null> {
		// A multiline `$` does not match before `\r\n`, so such text is tested line by line.
		if (!text.includes("\r") && !this.chunk.test(text)) return null;
		let found = false;
		const starts = text.split("\n").map((line) => {
			// re2js types its result as a bare array; it is shaped like RegExp's, with `index`.
			const match = this.line.exec(stripCr(line)) as RegExpExecArray | null;
			if (match === null) return -1;
			found = true;
			return match.index;
		});
		return found ? starts : null;
	}

	async test(text: string): Promise<boolean> {
		return this.chunk.test(text);
	}

	close(): void {}
}
