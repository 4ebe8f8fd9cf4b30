// Part of compiled.ts: names the bundle's functions V8 logged as scripts/eager-functions.mjs chooses
// them (module path and function key), and writes scripts/call-path-functions.mjs from them.
import { readFileSync, writeFileSync } from "node:fs";
import ts from "typescript";
// @ts-expect-error A build script in plain JavaScript, without type declarations.
import { functionKey, moduleRegions } from "../../scripts/eager-functions.mjs";

const keyOf = functionKey as (typescript: typeof ts, node: ts.Node) => string | undefined;
const regionsOf = moduleRegions as (text: string) => { start: number; module: string }[];

/** A bundled file's function-like nodes by their end, as V8's events give `start,end` positions. */
interface ParsedFile {
	regions: { start: number; module: string }[];
	byEnd: Map<number, ts.Node[]>;
}

const parsed = new Map<string, ParsedFile>();

function parse(file: string): ParsedFile {
	const known = parsed.get(file);
	if (known) return known;
	const text = readFileSync(file, "latin1");
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
	const byEnd = new Map<number, ts.Node[]>();
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node)) byEnd.set(node.end, [...(byEnd.get(node.end) ?? []), node]);
		ts.forEachChild(node, visit);
	};
	visit(source);
	const entry = { regions: regionsOf(text), byEnd };
	parsed.set(file, entry);
	return entry;
}

/**
 * The module and key of the function V8 logged at `start,end` of a bundled file (V8's start is its
 * parameter list's); an anonymous function gives the key of the nearest named one around it, which
 * the eager pass chooses it with. Undefined when neither has a key or the file has no module there.
 */
export function functionAt(file: string, start: number, end: number): { module: string; key: string } | undefined {
	const { regions, byEnd } = parse(file);
	const candidates = (byEnd.get(end) ?? []).filter((node) => node.getStart() <= start);
	let node: ts.Node | undefined = candidates.sort((a, b) => b.getStart() - a.getStart())[0];
	let key = node && keyOf(ts, node);
	while (node && key === undefined) {
		node = node.parent;
		while (node && !ts.isFunctionLike(node)) node = node.parent;
		key = node && keyOf(ts, node);
	}
	const region = regions.filter((candidate) => candidate.start <= start).pop();
	return node && key !== undefined && region ? { module: region.module.replace(/^dist\//, ""), key } : undefined;
}

/** Writes the functions, module by module, as scripts/call-path-functions.mjs. */
export function writeCallPathFunctions(path: string, functions: Map<string, Set<string>>): void {
	const modules = [...functions.keys()].sort();
	const lines = modules.flatMap((module) => {
		const rows: string[] = [];
		for (const key of [...(functions.get(module) ?? [])].sort().map((name) => `${JSON.stringify(name)},`)) {
			const last = rows.length - 1;
			if (last >= 0 && (rows[last] ?? "").length + key.length < 100) rows[last] += ` ${key}`;
			else rows.push(`\t\t${key}`);
		}
		return [`\t${JSON.stringify(module)}: [`, ...rows, "\t],"];
	});
	writeFileSync(
		path,
		`${[
			"// Written by `npx tsx bench/first-call/compiled.ts --write-list` on a build made with",
			"// TOOLBELT_LAZY_BUNDLE=1 (see scripts/eager-functions.mjs and scripts/bundle-library.mjs): the",
			"// functions each first-call row compiled inside its call, by module, as functionKey names them.",
			"",
			"/** Module path under dist/ → the keys of its functions compiled as the bundle loads. */",
			"export const callPathFunctions = {",
			...lines,
			"};",
		].join("\n")}\n`,
	);
}
