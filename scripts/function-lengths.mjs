#!/usr/bin/env node
// Lists the functions longer than N lines (default 100) in the given TypeScript files and the files
// below the given folders (default src), longest first, so the house rule "no function over 100
// lines" can be checked in one command:
//   node scripts/function-lengths.mjs [--max N] [folder or file ...]
// A function's length counts from the line where it starts to the line where its body closes, so a
// nested function also counts inside its parent. Exit code 1 when any function is over the limit.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const argumentList = process.argv.slice(2);
let maximumLines = 100;
const folders = [];
for (let index = 0; index < argumentList.length; index++) {
	const argument = argumentList[index];
	if (argument === "--max") {
		maximumLines = Number(argumentList[++index]);
	} else {
		folders.push(argument);
	}
}
if (folders.length === 0) folders.push("src");
if (!Number.isInteger(maximumLines) || maximumLines < 1) {
	console.error("--max wants a whole number of lines, e.g. --max 100");
	process.exit(2);
}

/** Every .ts/.mts/.tsx file below a folder (declaration files left out), or the file itself. */
function sourceFiles(folder) {
	if (!statSync(folder).isDirectory()) return [folder];
	const found = [];
	for (const entry of readdirSync(folder)) {
		if (entry === "node_modules" || entry === "dist") continue;
		const path = join(folder, entry);
		if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
		else if (/\.(ts|mts|tsx)$/.test(entry) && !entry.endsWith(".d.ts")) found.push(path);
	}
	return found;
}

/** A readable name for a function node: its own name, or that of the variable, property or call it sits in. */
function functionName(node) {
	if (node.name && ts.isIdentifier(node.name)) return node.name.text;
	if (node.name) return node.name.getText();
	if (ts.isConstructorDeclaration(node)) return "constructor";
	const parent = node.parent;
	if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
		return parent.name.getText();
	}
	if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
	return "(anonymous)";
}

const rows = [];
for (const folder of folders) {
	for (const file of sourceFiles(folder)) {
		const text = readFileSync(file, "utf8");
		const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
		const visit = (node) => {
			if (ts.isFunctionLike(node) && "body" in node && node.body) {
				const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
				const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
				const lines = last - first + 1;
				if (lines > maximumLines) {
					rows.push({ file: relative(process.cwd(), file), line: first + 1, name: functionName(node), lines });
				}
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
}

rows.sort((left, right) => right.lines - left.lines);
for (const row of rows) console.log(`${String(row.lines).padStart(4)}  ${row.file}:${row.line}  ${row.name}`);
console.log(
	rows.length === 0
		? `no function over ${maximumLines} lines in ${folders.join(", ")}`
		: `${rows.length} function(s) over ${maximumLines} lines`,
);
process.exitCode = rows.length === 0 ? 0 : 1;
