#!/usr/bin/env node
// Lists the import circles among the TypeScript files below a folder (default src), type-only imports and
// re-exports included, so "no import circle" can be checked without an extra dependency:
//   node scripts/import-circles.mjs [folder]
// Each circle is a strongly connected group of files; one path round it is printed. Exit code 1 when any.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(process.argv[2] ?? "src");

/** Every .ts file below a folder (declaration files left out). */
function sourceFiles(folder) {
	const found = [];
	for (const entry of readdirSync(folder)) {
		const path = join(folder, entry);
		if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
		else if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) found.push(path);
	}
	return found;
}

/** The file a relative specifier names ("./x.js" is written for "./x.ts"), or undefined for a package. */
function resolveSpecifier(fromFile, specifier) {
	if (!specifier.startsWith(".")) return undefined;
	const base = resolve(dirname(fromFile), specifier);
	const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts"), base];
	return candidates.find((candidate) => candidate.endsWith(".ts") && existsSync(candidate));
}

const files = sourceFiles(root);
const edges = new Map();
for (const file of files) {
	const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	const targets = new Set();
	for (const statement of source.statements) {
		const specifier =
			(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
		if (specifier && ts.isStringLiteral(specifier)) {
			const target = resolveSpecifier(file, specifier.text);
			if (target) targets.add(target);
		}
	}
	edges.set(file, targets);
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
let counter = 0;
const indexOf = new Map();
const lowOf = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(file) {
	indexOf.set(file, counter);
	lowOf.set(file, counter);
	counter++;
	stack.push(file);
	onStack.add(file);
	for (const target of edges.get(file) ?? []) {
		if (!indexOf.has(target)) {
			connect(target);
			lowOf.set(file, Math.min(lowOf.get(file), lowOf.get(target)));
		} else if (onStack.has(target)) {
			lowOf.set(file, Math.min(lowOf.get(file), indexOf.get(target)));
		}
	}
	if (lowOf.get(file) === indexOf.get(file)) {
		const component = [];
		let member;
		do {
			member = stack.pop();
			onStack.delete(member);
			component.push(member);
		} while (member !== file);
		if (component.length > 1 || edges.get(file)?.has(file)) components.push(component);
	}
}
for (const file of files) if (!indexOf.has(file)) connect(file);

/** One path from a file back to itself inside its component (breadth first, so it is a shortest one). */
function cycleThrough(start, members) {
	const previous = new Map([[start, undefined]]);
	const queue = [start];
	while (queue.length > 0) {
		const file = queue.shift();
		for (const target of edges.get(file) ?? []) {
			if (target === start) {
				const path = [file];
				for (let step = previous.get(file); step !== undefined; step = previous.get(step)) path.unshift(step);
				return [...path, start];
			}
			if (members.has(target) && !previous.has(target)) {
				previous.set(target, file);
				queue.push(target);
			}
		}
	}
	return [start];
}

const show = (file) => relative(process.cwd(), file);
for (const component of components) {
	const members = new Set(component);
	console.log(`circle of ${component.length} file(s): ${cycleThrough(component[0], members).map(show).join(" -> ")}`);
}
console.log(
	components.length === 0
		? `no import circle among ${files.length} files`
		: `${components.length} import circle(s) among ${files.length} files`,
);
process.exitCode = components.length === 0 ? 0 : 1;
