#!/usr/bin/env node
// Checks the walls between the parts of src (DESIGN.md, "Layers"), so they hold without an extra dependency:
//   node scripts/import-boundaries.mjs [folder]
// 1. Layers point down: a part imports only the parts listed below for it.
// 2. A part is entered through its index.ts: a file outside a part never imports one of its inner files.
//    A part is a top-level folder of src, or a folder named in `innerParts`; a file inside a part may
//    use its own inner files and those of the parts around it.
// 3. engine/ touches no disk: it imports no node:fs.
// 4. No folder holds more than `maxFilesPerFolder` files: group them by idea into subfolders.
// Every import is read (type-only ones, re-exports and `import()` included). Exit code 1 on any finding.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const root = resolve(process.argv[2] ?? "src");

/** What each top-level part may import (besides itself). A part missing here may import nothing. */
const allowed = {
	engine: [],
	// Two parts side by side on engine/: the Workspace (files, processes, search, on this machine or
	// another) and the syntax check of changed text (tree-sitter, YAML), which tools/ and safety/ use.
	workspace: ["engine"],
	syntax: ["engine"],
	// Language-server diagnostics after a change: servers run as local processes (workspace/local's
	// containment), and tools/ hand each written change to them.
	diagnostics: ["engine", "workspace"],
	tools: ["engine", "workspace", "syntax", "diagnostics"],
	agent: ["engine", "workspace", "syntax", "diagnostics", "tools"],
	safety: ["engine", "workspace", "syntax", "diagnostics", "tools"],
	checkpoints: ["engine", "workspace", "syntax", "diagnostics", "tools"],
	sessions: ["engine", "workspace", "syntax", "diagnostics", "tools", "agent", "checkpoints"],
	testing: ["engine", "workspace", "syntax", "diagnostics", "tools", "agent"],
	mcp: ["engine", "workspace", "syntax", "diagnostics", "tools", "agent", "safety", "checkpoints", "sessions"],
	adapters: ["engine", "workspace", "syntax", "diagnostics", "tools", "agent", "safety", "checkpoints"],
	cli: [
		"engine",
		"workspace",
		"syntax",
		"diagnostics",
		"tools",
		"agent",
		"safety",
		"checkpoints",
		"sessions",
		"mcp",
		"adapters",
	],
};

/** Folders below a top-level part that are parts of their own, entered through their index.ts. */
const innerParts = [
	"workspace/local",
	"workspace/remote",
	"workspace/url-schemes",
	"checkpoints/private-folder",
	// V8 flags the CLI sets before it compiles its bundle: a leaf of syntax/ that start.cjs can take alone.
	"syntax/baseline-wasm",
	// Which command lines are plain words: a leaf of safety/ that start.cjs takes to pick a start profile.
	"safety/shell-policy/plain-command",
];

/** Modules a part may not import, by part. */
const forbiddenModules = { engine: [/^(node:)?fs(\/promises)?$/] };

const maxFilesPerFolder = 15;

/** Every .ts file below a folder (declaration files left out), and the folders holding more than the limit. */
function sourceFiles(folder, crowded) {
	const found = [];
	let here = 0;
	for (const entry of readdirSync(folder)) {
		const path = join(folder, entry);
		if (statSync(path).isDirectory()) found.push(...sourceFiles(path, crowded));
		else {
			here++;
			if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) found.push(path);
		}
	}
	if (here > maxFilesPerFolder) crowded.push(`${relative(root, folder) || "."}: ${here} files`);
	return found;
}

/** The file a relative specifier names ("./x.js" is written for "./x.ts"), or undefined for a package. */
function resolveSpecifier(fromFile, specifier) {
	const base = resolve(dirname(fromFile), specifier);
	const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
	return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Every module specifier a file names: imports, re-exports and `import("…")`. */
function specifiersOf(file) {
	const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	const found = [];
	const visit = (node) => {
		if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
			if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
		} else if (
			ts.isCallExpression(node) &&
			node.expression.kind === ts.SyntaxKind.ImportKeyword &&
			node.arguments[0] &&
			ts.isStringLiteral(node.arguments[0])
		) {
			found.push(node.arguments[0].text);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/** The innermost part holding a file, as a path relative to root with `/` ("tools", "workspace/local"). */
function partOf(file) {
	const path = relative(root, file).split(sep).join("/");
	const inner = innerParts.filter((part) => path.startsWith(`${part}/`)).sort((a, b) => b.length - a.length)[0];
	return inner ?? path.split("/")[0];
}

const isInside = (part, file) => relative(root, file).split(sep).join("/").startsWith(`${part}/`);

const crowded = [];
const findings = [];
for (const file of sourceFiles(root, crowded)) {
	const from = relative(root, file);
	if (!from.includes(sep)) continue; // src/index.ts: the public API gathers every part's index
	const fromPart = partOf(file);
	const fromTop = fromPart.split("/")[0];
	for (const specifier of specifiersOf(file)) {
		if (!specifier.startsWith(".")) {
			if ((forbiddenModules[fromTop] ?? []).some((pattern) => pattern.test(specifier))) {
				findings.push(`${from}: imports ${specifier} (${fromTop}/ does no I/O of its own)`);
			}
			continue;
		}
		const target = resolveSpecifier(file, specifier);
		if (!target) continue;
		const toPart = partOf(target);
		const toTop = toPart.split("/")[0];
		if (toTop !== fromTop && !(allowed[fromTop] ?? []).includes(toTop)) {
			findings.push(`${from}: imports ${toTop}/ (${specifier}), but ${fromTop}/ lies below it`);
		} else if (!isInside(toPart, file) && target !== join(root, toPart, "index.ts")) {
			findings.push(`${from}: imports ${specifier}, an inner file of ${toPart}/ (use ${toPart}/index.ts)`);
		}
	}
}
for (const folder of crowded) findings.push(`${folder} (more than ${maxFilesPerFolder}: group them into subfolders)`);
if (findings.length === 0) {
	console.log("import boundaries: every part is entered through its index.ts, layers point down");
} else {
	console.log(findings.join("\n"));
	console.log(`${findings.length} finding(s)`);
	process.exitCode = 1;
}
