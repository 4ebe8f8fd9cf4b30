// The cases of a YAML change read by its entries alone (yaml-regions.ts) that a session meets most:
// a value changed, an entry added or removed in a long file, and what a piece cannot judge alone
// (a key of another entry), which the whole read judges. Anchors and aliases are not judged by the
// parser (an alias to no anchor reads clean, merge keys are off), so a change to them is read alone.
import { describe, expect, it } from "vitest";
import { checkSyntaxChange } from "../../src/syntax/index.js";
import { readYaml, type YamlReading } from "../../src/syntax/readers/yaml-reading.js";
import { updatedYamlReading } from "../../src/syntax/readers/yaml-regions.js";

const lines = Array.from({ length: 2000 }, (_, at) => (at % 5 === 0 ? `section${at}:` : `  key${at}: "value ${at}"`));
const text = `${lines.join("\n")}\n`;

const entriesOf = (reading: YamlReading | undefined) =>
	reading?.layout?.entries.map(({ start, key, boundary }) => ({ start, key, boundary }));

describe("YAML changes read by their entries", () => {
	it("derives a one-line change, an entry added and one removed in a 2,000-line file", async () => {
		const last = { text, reading: await readYaml(text) };
		const changed = text.replace('key1001: "value 1001"', 'key1001: "value 9001"');
		const added = text.replace("section1000:", "added:\n  list: [1, 2, 3]\nsection1000:");
		const removed = text.replace(/section1000:\n(?: {2}.*\n)+/, "");
		for (const next of [changed, added, removed]) {
			const fast = updatedYamlReading(last, next);
			expect(fast?.problems).toEqual([]);
			expect(entriesOf(fast)).toEqual(entriesOf(await readYaml(next)));
		}
	});

	it("derives a change in the last entry of a document, which ends on an empty value", async () => {
		const manifests = "kind: A\nspec:\n  a: 1\n  b:\n---\nkind: B\nspec:\n  c: 2\n";
		const last = { text: manifests, reading: await readYaml(manifests) };
		const fast = updatedYamlReading(last, manifests.replace("a: 1", "a: 5"));
		expect(fast?.problems).toEqual([]);
		expect(updatedYamlReading(last, manifests.replace("a: 1", "a: 1\n  a: 2"))).toBeUndefined();
	});

	it("derives a change deep inside one large top-level entry by its innermost mapping", async () => {
		const paths = Array.from({ length: 300 }, (_, at) => `  /items/${at}:\n    get:\n      summary: item ${at}\n`);
		const api = `openapi: 3.1.0\npaths:\n${paths.join("")}components: {}\n`;
		const last = { text: api, reading: await readYaml(api) };
		for (const next of [
			api.replace("summary: item 150", "summary: the item 150"),
			api.replace("summary: item 150\n", "summary: item 150\n      deprecated: true\n"),
			api.replace("  /items/150:\n", "  /items/new:\n    post: {}\n  /items/150:\n"),
		]) {
			const fast = updatedYamlReading(last, next);
			expect(fast?.problems).toEqual([]);
			expect(entriesOf(fast)).toEqual(entriesOf(await readYaml(next)));
		}
		// A key repeated in the mapping, and a line moved left that would end the document alone.
		for (const next of [
			api.replace("summary: item 150\n", "summary: item 150\n      summary: again\n"),
			api.replace("  /items/151:\n", "  ...\n  /items/151:\n"),
		]) {
			expect(updatedYamlReading(last, next)).toBeUndefined();
			expect((await readYaml(next)).problems).not.toEqual([]);
		}
	});

	it("leaves a key of another entry to the whole read, and reads anchors and aliases alone", async () => {
		const last = { text, reading: await readYaml(text) };
		// A duplicate of a top-level key elsewhere in the file.
		expect(updatedYamlReading(last, text.replace("section1000:", "section5:"))).toBeUndefined();
		const anchored = "base: &base\n  a: 1\nother:\n  b: 2\nuse:\n  <<: *base\n";
		const withAnchor = { text: anchored, reading: await readYaml(anchored) };
		for (const next of [
			anchored.replace("&base", "&renamed"),
			anchored.replace("b: 2", "b: 3"),
			anchored.replace("b: 2", "b: *base"),
			anchored.replace("b: 2", "b: *nowhere"),
		]) {
			expect((await readYaml(next)).problems).toEqual([]);
			expect(updatedYamlReading(withAnchor, next)?.problems).toEqual([]);
		}
	});

	it("refuses a breaking change after fast clean ones, at the place a whole read finds", async () => {
		const path = "/project/deploy/values.yaml";
		const second = text.replace('key1001: "value 1001"', 'key1001: "value 9001"');
		const duplicate = second.replace("section5:", "section1000:");
		const tab = second.replace('  key1002: "value 1002"', '  key1002: "value 1002"\n\tkey: tab');
		expect((await checkSyntaxChange({ path, before: text, after: second })).status).toBe("clean");
		const twice = await checkSyntaxChange({ path, before: second, after: duplicate });
		expect(twice.status).toBe("broken");
		expect(twice.added[0]?.description).toMatch(/unique/);
		const tabbed = await checkSyntaxChange({ path, before: second, after: tab });
		expect(tabbed.status).toBe("broken");
		expect(tabbed.added[0]).toMatchObject({ line: 1004 });
	});
});
