// The syntax check's cost per change (issue 28: ≤ 5 ms for a 2,000-line file after warm-up): one
// line changed in a 2,000-line file, read before and after as write/edit do. The file's last tree is
// kept between checks, as it is between a session's edits of one file. No raw command does this
// work, so the goal is absolute.
import { join } from "node:path";
import { checkSyntaxChange } from "../../src/syntax/index.js";
import type { BenchCase, BenchContext } from "../types.js";

const LINES = 2000;

interface Language {
	file: string;
	/** Line `index` of the file. */
	line: (index: number) => string;
	/** The text around the lines (a document needs its head and foot). */
	wrap?: (body: string) => string;
	/** A structure added in the middle (the row's name, the text, the line it goes before). */
	added?: { name: string; text: string; before: string };
}

const MANIFEST_LINES = [
	"---",
	"apiVersion: apps/v1",
	"kind: Deployment",
	"metadata: {name: app-#}",
	"spec:",
	...Array.from({ length: 43 }, (_, at) =>
		at % 3 === 0 ? `  part${at}_#:` : `    setting${at}: "value #"${at % 3 === 1 ? "" : "  # note"}`,
	),
];

const LANGUAGES: Language[] = [
	{
		file: "module.ts",
		line: (index) =>
			index % 4 === 0
				? `export function step${index}(value: number): number {`
				: index % 4 === 3
					? "}"
					: `\tconst item${index} = compute(value, ${index}); // line ${index}`,
	},
	{
		file: "data.json",
		line: (index) => `  "key${index}": { "value": ${index}, "label": "entry ${index}" },`,
		wrap: (body) => `{\n${body}  "last": true\n}\n`,
		added: { name: "a member added", text: '  "added": [1, 2, 3],\n', before: "" },
	},
	{
		file: "page.html",
		line: (index) => `    <li class="row" data-index="${index}"><a href="/item/${index}">Item ${index}</a></li>`,
		wrap: (body) => `<!doctype html>\n<html>\n<body>\n  <ul>\n${body}  </ul>\n</body>\n</html>\n`,
	},
	{
		file: "deploy.yaml",
		line: (index) => (index % 5 === 0 ? `section${index}:` : `  key${index}: "value ${index}"`),
		added: { name: "an entry added", text: "added:\n  list: [1, 2, 3]\n", before: "section" },
	},
	{
		// 42 Kubernetes-like documents of 48 lines: the change falls inside a 43-line `spec:`.
		file: "manifests.yaml",
		line: (index) => MANIFEST_LINES[index % MANIFEST_LINES.length]?.replace("#", String(index)) ?? "",
	},
	{
		// One top-level entry of 2,000 lines (an OpenAPI description's `paths:`): the change is read in
		// its innermost mapping.
		file: "openapi.yaml",
		line: (index) =>
			index % 3 === 0 ? `  /items/${index}:` : index % 3 === 1 ? "    get:" : `      summary: item ${index}`,
		wrap: (body) => `openapi: 3.1.0\npaths:\n${body}`,
	},
	{
		file: "service.py",
		line: (index) =>
			index % 4 === 0 ? `def step${index}(value):` : `    item${index} = compute(value, ${index})  # line ${index}`,
	},
	{
		file: "Service.cs",
		line: (index) =>
			index % 4 === 0
				? `    public int Step${index}(int value) {`
				: index % 4 === 3
					? "    }"
					: `        var item${index} = Compute(value, ${index}); // line ${index}`,
		wrap: (body) => `public class Service {\n${body}}\n`,
	},
	{
		file: "site.css",
		line: (index) => `.row-${index} { margin: ${index}px; color: #${(index % 4096).toString(16).padStart(3, "0")}; }`,
	},
	{
		file: "config.toml",
		line: (index) => (index % 5 === 0 ? `[section${index}]` : `key${index} = "value ${index}"`),
	},
	// The other grammars issue 28 lists, read as TypeScript, Python and C# are (kept tree, re-parse).
	{
		file: "app.js",
		line: (index) =>
			index % 4 === 0
				? `export function step${index}(value) {`
				: index % 4 === 3
					? "}"
					: `\tconst item${index} = compute(value, ${index}); // line ${index}`,
	},
	{
		file: "view.tsx",
		line: (index) =>
			index % 4 === 0
				? `export function Row${index}(props: { value: number }) {`
				: index % 4 === 3
					? "}"
					: `\treturn <li className="row" data-index={${index}}>{props.value + ${index}}</li>;`,
	},
	{
		file: "main.go",
		line: (index) =>
			index % 4 === 0
				? `func step${index}(value int) int {`
				: index % 4 === 3
					? "}"
					: `\titem${index} := compute(value, ${index}) // line ${index}\n\t_ = item${index}`,
		wrap: (body) => `package main\n\n${body}`,
	},
	{
		file: "lib.rs",
		line: (index) =>
			index % 4 === 0
				? `pub fn step${index}(value: i64) -> i64 {`
				: index % 4 === 3
					? "}"
					: `    let item${index} = compute(value, ${index}); // line ${index}`,
	},
	{
		file: "Service.java",
		line: (index) =>
			index % 4 === 0
				? `    public int step${index}(int value) {`
				: index % 4 === 3
					? "    }"
					: `        int item${index} = compute(value, ${index}); // line ${index}`,
		wrap: (body) => `public class Service {\n${body}}\n`,
	},
	{
		file: "util.cpp",
		line: (index) =>
			index % 4 === 0
				? `int step${index}(int value) {`
				: index % 4 === 3
					? "}"
					: `    int item${index} = compute(value, ${index}); // line ${index}`,
	},
	{
		file: "service.rb",
		line: (index) =>
			index % 4 === 0
				? `def step${index}(value)`
				: index % 4 === 3
					? "end"
					: `  item${index} = compute(value, ${index}) # line ${index}`,
	},
	{
		file: "service.php",
		line: (index) =>
			index % 4 === 0
				? `function step${index}($value) {`
				: index % 4 === 3
					? "}"
					: `    $item${index} = compute($value, ${index}); // line ${index}`,
		wrap: (body) => `<?php\n${body}`,
	},
	{
		file: "deploy.sh",
		line: (index) =>
			index % 4 === 0
				? `step${index}() {`
				: index % 4 === 3
					? "}"
					: `  item${index}=$(compute "$1" ${index}) # line ${index}`,
	},
];

function textOf(language: Language, variant: number): string {
	const lines: string[] = [];
	for (let index = 0; index < LINES; index++) {
		// One line in the middle differs between the two variants: the change each check reads.
		lines.push(
			index === LINES / 2 + 1 && variant === 1 ? language.line(index).replace("1", "9") : language.line(index),
		);
	}
	const body = `${lines.join("\n")}\n`;
	return language.wrap ? language.wrap(body) : body;
}

function checkCase(language: Language, added = false): BenchCase {
	const base = textOf(language, 0);
	// A structure added in the middle (and taken away at the next turn): a change of the structure,
	// not of one value.
	const middle = base.indexOf(`\n${language.added?.before ?? ""}`, base.length >> 1) + 1;
	const texts = [
		base,
		added ? `${base.slice(0, middle)}${language.added?.text}${base.slice(middle)}` : textOf(language, 1),
	];
	let turn = 0;
	const extension = language.file.split(".")[1];
	const kind =
		language.file === "manifests.yaml"
			? "yaml file of 42 documents"
			: language.file === "openapi.yaml"
				? "yaml file in one top-level entry"
				: `${extension} file`;
	return {
		group: "syntax",
		name: added
			? `check ${language.added?.name} to a 2,000-line ${kind}`
			: `check a one-line change of a 2,000-line ${kind}`,
		goal: "≤ 5 ms after warm-up",
		maxMs: 5,
		repeat: 20,
		async toolbelt(context: BenchContext) {
			const [before, after] = turn++ % 2 === 0 ? [texts[0], texts[1]] : [texts[1], texts[0]];
			if (before === undefined || after === undefined) throw new Error("no text");
			const verdict = await checkSyntaxChange({ path: join(context.dataDir, language.file), before, after });
			return { ok: verdict.status === "clean", note: verdict.language };
		},
	};
}

export const cases: BenchCase[] = [
	...LANGUAGES.map((language) => checkCase(language)),
	...LANGUAGES.filter((language) => language.added).map((language) => checkCase(language, true)),
];
