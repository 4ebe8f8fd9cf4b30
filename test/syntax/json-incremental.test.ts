// A change to a clean JSON file is checked by reading only the items it touched (json-regions.ts).
// Its answer must be the one a whole parse gives: checked here on thousands of seeded random edits,
// most of them of the characters that make JSON's structure (brackets, commas, quotes, escapes,
// comments), in strict JSON and in JSON with comments.
import { describe, expect, it } from "vitest";
import { checkSyntaxChange } from "../../src/syntax/index.js";
import { type JsonReading, type JsonTokens, readJson } from "../../src/syntax/readers/json-reading.js";
import { updatedJsonReading } from "../../src/syntax/readers/json-regions.js";
import { seededRandom, spliceRandomPieces } from "./random-edits.js";

const STRICT = `{
  "name": "shop",
  "version": "1.0.0",
  "tags": ["a", "b\\"c", "\\u00e9", [], {}],
  "prices": [1, -2.5, 3e10, 0, 0.25E-3],
  "nested": { "deep": { "deeper": [true, false, null, { "x": "y" }] } },
  "empty": {},
  "path": "C:\\\\temp\\\\file",
  "last": [[1, 2], [3, [4, [5]]]]
}
`;

const WITH_COMMENTS = `// settings
{
  /* a block
     comment */ "compilerOptions": {
    "strict": true, // why
    "paths": { "@/*": ["src/*",], },
  },
  "include": ["src", "test" /* and tests */],
}
`;

const TOP_ARRAY = `[
  {"id": 1, "tags": []},
  {"id": 2, "tags": ["x"]},
  3, "four", null
]`;

const PLAIN = ["a", "1", " ", "\n", "é", "", "x y", "0"];
const STRUCTURE = [
	"{",
	"}",
	"[",
	"]",
	",",
	":",
	'"',
	"\\",
	"/",
	"*",
	"//",
	"/*",
	"*/",
	'"k": 1,',
	"-",
	"e",
	".",
	"true",
];
const PIECES = [...PLAIN, ...STRUCTURE, ...STRUCTURE];

function edit(text: string, next: () => number): string {
	const start = Math.floor(next() * text.length);
	return spliceRandomPieces(text, start, next, PIECES);
}

const tokensOf = (reading: JsonReading) =>
	reading.tokens && {
		starts: [...reading.tokens.starts],
		ends: [...reading.tokens.ends],
		kinds: [...reading.tokens.kinds],
	};

describe("JSON changes checked by reading the touched items", () => {
	it("give, for every seeded random edit, the answer and tokens a whole parse gives", async () => {
		let derived = 0;
		let cleanEdits = 0;
		let edits = 0;
		const documents = [
			{ text: STRICT, comments: false },
			{ text: WITH_COMMENTS, comments: true },
			{ text: TOP_ARRAY, comments: false },
			{ text: STRICT, comments: true },
		];
		for (const [index, { text: document, comments }] of documents.entries()) {
			const options = { comments };
			const next = seededRandom(11 + index);
			const first = { text: document, reading: await readJson(document, options) };
			expect(first.reading.problems).toEqual([]);
			let last = first;
			for (let round = 0; round < 2000; round++) {
				// Back to the document once it is broken (a broken text is always parsed whole), and now
				// and then anyway, so that edits land in a document and not only in debris.
				if (round % 25 === 0 || last.reading.problems.length > 0) last = first;
				const text = edit(last.text, next);
				// An edit that changes nothing never reaches a reader (the check answers it first).
				if (text === last.text) continue;
				const whole = await readJson(text, options);
				const fast = updatedJsonReading(last, text, options);
				edits++;
				if (whole.problems.length === 0) cleanEdits++;
				if (fast) {
					derived++;
					expect(fast.problems, `document ${index}, round ${round}: ${JSON.stringify(text)}`).toEqual(whole.problems);
					expect(tokensOf(fast)).toEqual(tokensOf(whole));
				}
				last = { text, reading: whole };
			}
		}
		expect(edits).toBeGreaterThan(5000);
		// Every derived answer is a clean one; most clean edits are derived (6,417 edits, 1,697 clean,
		// 1,595 derived; the rest touch the top level outside any container, such as a comment before
		// the root, or a comment that swallowed the comma ending the piece).
		expect(derived).toBeGreaterThan(cleanEdits * 0.8);
		expect(cleanEdits).toBeGreaterThan(1000);
	}, 120_000);

	it("derives the reading of a one-line change in a 2,000-line file, and parses a breaking one whole", async () => {
		const lines = Array.from({ length: 2000 }, (_, at) => `  "key${at}": { "value": ${at}, "label": "entry ${at}" },`);
		const text = `{\n${lines.join("\n")}\n  "last": true\n}\n`;
		const options = { comments: false };
		const last = { text, reading: await readJson(text, options) };
		const changed = text.replace('"value": 1001,', '"value": 9001,');
		const added = text.replace('"key5": {', '"new": [1, 2],\n  "key5": {');
		const removed = text.replace(/\n {2}"key7": .*,/, "");
		for (const next of [changed, added, removed]) {
			const fast = updatedJsonReading(last, next, options)?.tokens;
			const whole = (await readJson(next, options)).tokens;
			// Compared as bytes: a deep comparison of 30,000 numbers takes seconds.
			const bytes = (tokens: JsonTokens | undefined) =>
				tokens && Buffer.concat([tokens.starts, tokens.ends, tokens.kinds].map((array) => Buffer.from(array.buffer)));
			expect(fast && whole && bytes(fast)?.equals(bytes(whole) ?? Buffer.alloc(0))).toBe(true);
		}
		expect(updatedJsonReading(last, text.replace('"value": 1001,', '"value": 1001'), options)).toBeUndefined();
	});

	it("refuses a broken change after fast clean ones, at the place a whole parse finds", async () => {
		const path = "/project/data/prices.json";
		const first = `{\n  "a": 1,\n  "b": [1, 2, 3],\n  "c": { "d": "e" }\n}\n`;
		const second = first.replace('"d": "e"', '"d": "f"');
		const third = second.replace("[1, 2, 3]", "[1, 2 3]");
		expect((await checkSyntaxChange({ path, before: first, after: second })).status).toBe("clean");
		const verdict = await checkSyntaxChange({ path, before: second, after: third });
		expect(verdict.status).toBe("broken");
		expect(verdict.added).toMatchObject([{ line: 3, column: 14, description: "comma expected" }]);
	});
});
