// A change to a clean YAML file is checked by reading only the entries of the innermost mapping it
// touched (yaml-regions.ts). Its answer must be the one a whole read gives: checked here on thousands of
// seeded random edits of real kinds of YAML files, most of them of what makes YAML's structure
// (indentation, line breaks, keys, dashes, anchors and aliases, block scalar headers, brackets,
// quotes, document markers, tabs), and of whole lines moved, doubled and removed (duplicate keys).
import { describe, expect, it } from "vitest";
import { readYaml, type YamlReading } from "../../src/syntax/readers/yaml-reading.js";
import { updatedYamlReading } from "../../src/syntax/readers/yaml-regions.js";
import { seededRandom, spliceRandomPieces } from "./random-edits.js";
import { COMPOSE, MANIFESTS, OPENAPI, WORKFLOW } from "./yaml-documents.js";

const PLAIN = ["a", "1", " ", "  ", "\n", "é", "", "x y", "key: value\n", "\nkey: value", "name: web\n"];
const STRUCTURE = [
	":",
	": ",
	"- ",
	"\n- ",
	"\n  ",
	"\t",
	"#",
	" # note",
	"&a ",
	"*a",
	"&defaults ",
	"*defaults",
	"!!str ",
	"!t ",
	"|",
	">-",
	"|2",
	"[",
	"]",
	"{",
	"}",
	",",
	"'",
	'"',
	"\\",
	"---\n",
	"\n---",
	"...\n",
	"%YAML 1.2\n",
	"? ",
	"<<: ",
	"\r\n",
	"\uFEFF",
	"\n '",
	'\n "',
];
const PIECES = [...PLAIN, ...STRUCTURE, ...STRUCTURE];

function edit(text: string, next: () => number): string {
	const lines = text.split("\n");
	const line = Math.floor(next() * lines.length);
	const choice = next();
	if (choice < 0.25) {
		// Whole lines: removed, doubled, or one copied elsewhere (a key that now appears twice).
		const other = Math.floor(next() * lines.length);
		const moved = [...lines];
		if (choice < 0.08) moved.splice(line, 1);
		else if (choice < 0.16) moved.splice(line, 0, lines[line] ?? "");
		else moved.splice(other, 0, lines[line] ?? "");
		return moved.join("\n");
	}
	// Most edits land at or near the start of a line, where YAML's structure is.
	const lineStart = lines.slice(0, line).reduce((sum, each) => sum + each.length + 1, 0);
	const start = choice < 0.65 ? lineStart + Math.floor(next() * 4) : Math.floor(next() * text.length);
	return spliceRandomPieces(text, start, next, PIECES);
}

const entriesOf = (reading: YamlReading) =>
	reading.layout?.entries.filter((entry) => entry.boundary).map(({ start, key }) => ({ start, key }));

describe("YAML changes checked by reading the touched entries", () => {
	it("give, for every seeded random edit, the answer a whole read gives", async () => {
		let derived = 0;
		let cleanEdits = 0;
		let edits = 0;
		const mismatches: string[] = [];
		const documents = [WORKFLOW, MANIFESTS, COMPOSE, OPENAPI];
		for (const [index, document] of documents.entries()) {
			const next = seededRandom(7 + index);
			const first = { text: document, reading: await readYaml(document) };
			expect(first.reading.problems, `document ${index}`).toEqual([]);
			let last = first;
			// 600 rounds a document keep the suite's time (a whole read of the OpenAPI file is tens of ms); the
			// sweeps with other seeds during the work ran 27,000 edits more.
			for (let round = 0; round < 600; round++) {
				// Back to the document once it is broken (a broken text is always read whole), and now
				// and then anyway, so that edits land in a document and not only in debris. Clean edits
				// follow each other: a derived reading is the base of the next change, as in a session.
				if (round % 40 === 0 || last.reading.problems.length > 0) last = first;
				const text = edit(last.text, next);
				// An edit that changes nothing never reaches a reader (the check answers it first).
				if (text === last.text) continue;
				const whole = await readYaml(text);
				const fast = updatedYamlReading(last, text);
				edits++;
				if (whole.problems.length === 0) cleanEdits++;
				if (fast) {
					derived++;
					expect(whole.problems, `document ${index}, round ${round}: ${JSON.stringify(text)}`).toEqual([]);
					if (JSON.stringify(entriesOf(fast)) !== JSON.stringify(entriesOf(whole))) {
						mismatches.push(`${index}/${round}: ${JSON.stringify(last.text)} -> ${JSON.stringify(text)}`);
					}
				}
				last = { text, reading: fast ?? whole };
			}
		}
		// The derived entries are the whole read's: a later change is cut at the same places.
		expect(mismatches).toEqual([]);
		// About half the edits of 1,200 rounds (4,133 edits, 1,426 clean, 1,294 of those derived); the rest
		// touched a line before the first key, a document marker, or an entry whose new text starts less
		// indented than its mapping.
		expect(edits).toBeGreaterThan(1700);
		expect(cleanEdits).toBeGreaterThan(500);
		expect(derived).toBeGreaterThan(cleanEdits * 0.5);
	}, 300_000);
});
