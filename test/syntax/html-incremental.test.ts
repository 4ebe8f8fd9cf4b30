// A change that stays inside plain text or a quoted attribute value is checked without parsing the
// page again (html-inert-spans.ts). Its reading must be the one a whole parse gives: checked here on
// thousands of seeded random edits of pages full of the places where HTML text is not plain.
import { describe, expect, it } from "vitest";
import { type HtmlReading, updatedHtmlReading } from "../../src/syntax/readers/html-inert-spans.js";
import { readHtml } from "../../src/syntax/readers/html-reading.js";
import { seededRandom } from "./random-edits.js";

const PAGES = [
	`<!doctype html>
<html lang="en">
<head><title>Shop &amp; more</title><meta charset="utf-8"><style>p > a { color: red }</style></head>
<body>
  <ul>
    <li class="row" data-index="1"><a href="/item/1">Item one</a></li>
    <li class='row' data-index="2"><a href="/item/2?a=1&b=2">Item &copy two</a></li>
  </ul>
  <div id="box">Some text <b>bold <i>both</b> italic</i> after</div>
  <table><tr><td>cell text</td></tr>stray text<tr><td title="t">two</td></tr></table>
  <p>Para one<p>Para two
  <select><option value="a">Alpha</option><option>Beta</select>
  <svg viewBox="0 0 10 10"><text x="1">vector text</text><foreignObject><div>inside</div></foreignObject></svg>
  <template><span>kept</span> loose text</template>
  <textarea name="t">raw <b> text</textarea>
  <script>if (a < b && c) { x = "</div>"; }</script>
  <!-- a comment -- with dashes -->
  <img src="x.png" alt="an image"><br/>
  <div>unclosed
</body>
</html>
after the end
`,
	`<section data-x="1">
  <h2>Fragment title</h2>
  <p class="lead">Some lead text with <a href="#">a link</a>.</p>
  <div><span>one</span><span>two</span></div>
  </section>
  <div>trailing</div></div>
`,
];

// Plain pieces are drawn as often as the ones that can end or change a span.
const PLAIN = ["a", "b", " ", "x y", "\n", "é", ""];
const MARKUP = ["<", ">", "&", "&amp;", '"', "'", "/", "</div>", "<b>", "=", "-", "\u0001", "\r\n"];
const PIECES = [...PLAIN, ...PLAIN, ...MARKUP];

function edit(text: string, next: () => number): string {
	const start = Math.floor(next() * text.length);
	const removed = next() < 0.5 ? 0 : Math.floor(next() * 6);
	const inserted = Array.from(
		{ length: Math.floor(next() * 3) },
		() => PIECES[Math.floor(next() * PIECES.length)],
	).join("");
	return text.slice(0, start) + inserted + text.slice(start + removed);
}

const comparable = (reading: HtmlReading) =>
	reading.problems.map(({ line, column, offset, end, description }) => ({ line, column, offset, end, description }));

describe("HTML changes checked without a whole parse", () => {
	it("give, for every seeded random edit, the errors a whole parse gives", async () => {
		let derived = 0;
		let edits = 0;
		for (const [pageIndex, page] of PAGES.entries()) {
			const next = seededRandom(7 + pageIndex);
			const first = { text: page, reading: await readHtml(page) };
			let last = first;
			for (let round = 0; round < 1500; round++) {
				// Back to the page now and then, so that edits land in a page and not only in debris.
				if (round % 20 === 0) last = first;
				const text = edit(last.text, next);
				const whole = await readHtml(text);
				const fast = updatedHtmlReading(last, text);
				edits++;
				if (fast) {
					derived++;
					expect(comparable(fast), `page ${pageIndex}, round ${round}`).toEqual(comparable(whole));
					expect(fast.inert).toEqual(whole.inert);
				}
				// Go on from the whole parse's reading, as the check does after a refused update.
				last = { text, reading: fast ?? whole };
			}
		}
		// The comparison ran on hundreds of derived readings, not on none (most random offsets fall in
		// tags, scripts and tables, which are parsed whole): 210 of the 3,000 seeded edits.
		expect(edits).toBe(3000);
		expect(derived).toBeGreaterThan(150);
	}, 120_000);

	it("derives the reading of a changed attribute value and of changed copy in a large page", async () => {
		const rows = Array.from(
			{ length: 2000 },
			(_, index) => `    <li class="row" data-index="${index}"><a href="/item/${index}">Item ${index}</a></li>`,
		);
		const page = `<!doctype html>\n<html>\n<body>\n  <ul>\n${rows.join("\n")}\n  </ul>\n</body>\n</html>\n`;
		const last = { text: page, reading: await readHtml(page) };
		const attribute = page.replace('data-index="1001"', 'data-index="9001"');
		const copy = page.replace(">Item 1500<", ">Item fifteen hundred<");
		const broken = page.replace('data-index="1001"', 'data-index="1001');
		expect(updatedHtmlReading(last, attribute)?.problems).toEqual([]);
		expect(updatedHtmlReading(last, copy)?.problems).toEqual([]);
		// A quote removed ends the value elsewhere: that change is parsed whole.
		expect(updatedHtmlReading(last, broken)).toBeUndefined();
	});
});
