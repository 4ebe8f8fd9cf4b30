#!/usr/bin/env node
// Keeps process-wide state out of the test files that share a worker process (vitest.config.ts, the
// "shared" project: no isolation, so the modules a file loaded stay loaded for the next file). A file
// that changes the process for good (an environment variable, the working directory, a module mock,
// a global, a process listener, the shell's containment variable) would leak that change into every
// later file of its worker, which would then silently test something else. Such a file belongs in
// test/schedule/own-worker.json, with the reason; this check fails on one that is not listed there.
// It reads each shared test file and the test helpers it imports (relative imports inside test/).
//   node scripts/shared-worker-tests.mjs [file…]   (default: every test file; exit code 1 when any)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(new URL("..", import.meta.url).pathname);
const testRoot = join(root, "test");
const ownWorker = JSON.parse(readFileSync(join(testRoot, "schedule", "own-worker.json"), "utf8"));

/** Every test file below a folder. */
function testFiles(folder) {
	return readdirSync(folder).flatMap((entry) => {
		const path = join(folder, entry);
		if (statSync(path).isDirectory()) return testFiles(path);
		return entry.endsWith(".test.ts") ? [path] : [];
	});
}

/** The file a relative specifier names ("./x.js" is written for "./x.ts"), if it is inside test/. */
function resolveHelper(fromFile, specifier) {
	if (!specifier.startsWith(".")) return undefined;
	const base = resolve(dirname(fromFile), specifier);
	const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts"), base];
	const found = candidates.find((candidate) => /\.(ts|mjs|cjs|js)$/.test(candidate) && existsSync(candidate));
	return found?.startsWith(`${testRoot}/`) ? found : undefined;
}

/** The expression inside parentheses and type assertions: `(globalThis as T)` is `globalThis`. */
function unwrap(node) {
	let current = node;
	while (
		ts.isParenthesizedExpression(current) ||
		ts.isAsExpression(current) ||
		ts.isTypeAssertionExpression(current) ||
		ts.isNonNullExpression(current) ||
		ts.isSatisfiesExpression(current)
	)
		current = current.expression;
	return current;
}

/** `process.env`, `process.env.X`, `process.env[X]` (any depth below `process`). */
function isUnderProcess(node) {
	let current = unwrap(node);
	while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) {
		current = unwrap(current.expression);
		if (ts.isIdentifier(current) && current.text === "process") return true;
	}
	return false;
}

function isGlobalObject(node) {
	const current = unwrap(node);
	return ts.isIdentifier(current) && (current.text === "globalThis" || current.text === "global");
}

/** The object an assignment target changes a property of, for `a.b = …` and `a[b] = …`. */
function assignedOwner(target) {
	const current = unwrap(target);
	return ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)
		? unwrap(current.expression)
		: undefined;
}

const processCalls = new Set([
	"chdir",
	"umask",
	"setuid",
	"setgid",
	"seteuid",
	"setegid",
	"setgroups",
	"initgroups",
	"on",
	"once",
	"addListener",
	"prependListener",
	"prependOnceListener",
	"setMaxListeners",
	"setUncaughtExceptionCaptureCallback",
	"setSourceMapsEnabled",
]);
const viCalls = new Set(["mock", "doMock", "useFakeTimers"]);
// `vi.stubEnv` and `vi.stubGlobal` end with their file (test/schedule/restore-stubs.ts), except what
// the product reads once per process: a stubbed containment variable would switch every later shell
// of the worker to process groups, as the restored value is never read again.
const readOncePerProcess = new Set(["TOOLBELT_SHELL_CONTAINMENT", "TOOLBELT_HOOK_LAUNCHER"]);
const assignments = new Set([
	ts.SyntaxKind.EqualsToken,
	ts.SyntaxKind.PlusEqualsToken,
	ts.SyntaxKind.MinusEqualsToken,
	ts.SyntaxKind.BarBarEqualsToken,
	ts.SyntaxKind.QuestionQuestionEqualsToken,
	ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** What in one source file changes the process beyond the file, as "line: what". */
function processWideState(file) {
	const text = readFileSync(file, "utf8");
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found = [];
	const report = (node, what) => {
		const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
		found.push(`${relative(root, file)}:${line}: ${what}`);
	};
	const visit = (node) => {
		if (ts.isBinaryExpression(node) && assignments.has(node.operatorToken.kind)) {
			const owner = assignedOwner(node.left);
			if (isUnderProcess(node.left)) report(node, `assigns ${node.left.getText(source)}`);
			else if (owner && isGlobalObject(owner)) report(node, `assigns the global ${node.left.getText(source)}`);
			else if (owner && ts.isPropertyAccessExpression(owner) && owner.name.text === "prototype")
				report(node, `patches ${node.left.getText(source)}`);
		}
		if (ts.isDeleteExpression(node)) {
			const owner = assignedOwner(node.expression);
			if (isUnderProcess(node.expression) || (owner && isGlobalObject(owner)))
				report(node, `deletes ${node.expression.getText(source)}`);
		}
		if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
			const { expression: owner, name } = node.expression;
			const ownerText = owner.getText(source);
			if (ownerText === "process" && processCalls.has(name.text) && !(name.text === "umask" && node.arguments.length === 0))
				report(node, `calls process.${name.text}`);
			if (ownerText === "vi" && viCalls.has(name.text)) report(node, `calls vi.${name.text}`);
			const stubbed = node.arguments[0];
			if (ownerText === "vi" && name.text === "stubEnv" && stubbed && !ts.isStringLiteralLike(stubbed))
				report(node, "stubs a variable it does not name");
			if (ownerText === "vi" && name.text === "stubEnv" && stubbed && ts.isStringLiteralLike(stubbed)) {
				if (readOncePerProcess.has(stubbed.text)) report(node, `stubs ${stubbed.text}, read once per process`);
			}
			if (ownerText === "vi" && name.text === "spyOn" && node.arguments[0]) {
				const spied = node.arguments[0].getText(source);
				if (/^(process|globalThis|global|console)\b/.test(spied)) report(node, `spies on ${spied}`);
			}
			if (ownerText === "Object" && /^(assign|defineProperty|defineProperties|setPrototypeOf)$/.test(name.text)) {
				const target = node.arguments[0] && unwrap(node.arguments[0]);
				if (target && (isUnderProcess(target) || isGlobalObject(target) || target.getText(source) === "process"))
					report(node, `Object.${name.text} on ${target.getText(source)}`);
			}
		}
		// process.env under another name, which the writes above would not see (the shell's containment
		// variable, set this way, would switch every later shell of the worker to process groups).
		if (ts.isVariableDeclaration(node) && node.initializer && unwrap(node.initializer).getText(source) === "process.env")
			report(node, "holds process.env under another name");
		ts.forEachChild(node, visit);
	};
	visit(source);
	const helpers = [];
	for (const statement of source.statements) {
		const specifier =
			(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
		if (specifier && ts.isStringLiteral(specifier)) {
			const helper = resolveHelper(file, specifier.text);
			if (helper) helpers.push(helper);
		}
	}
	return { found, helpers };
}

const seen = new Map();
/** The findings of a file and of every test helper it imports, each file read once. */
function findingsOf(file) {
	if (seen.has(file)) return seen.get(file);
	seen.set(file, []);
	const { found, helpers } = processWideState(file);
	const all = [...found, ...helpers.flatMap(findingsOf)];
	seen.set(file, all);
	return all;
}

const problems = [];
for (const listed of Object.keys(ownWorker)) {
	if (!existsSync(join(root, listed))) problems.push(`${listed}: listed in own-worker.json, but there is no such file`);
}
const files = process.argv.length > 2 ? process.argv.slice(2).map((file) => resolve(file)) : testFiles(testRoot);
let shared = 0;
for (const file of files) {
	if (relative(root, file) in ownWorker) continue;
	shared += 1;
	const findings = findingsOf(file);
	if (findings.length > 0) problems.push(`${relative(root, file)} shares its worker, but:\n  ${findings.join("\n  ")}`);
}
if (problems.length > 0) {
	console.error(problems.join("\n"));
	console.error(
		"A test file that changes the process must run in a worker of its own: list it in test/schedule/own-worker.json with the reason, or undo the change (pass `env` to the child instead of writing process.env).",
	);
	process.exit(1);
}
console.log(`${shared} test files share workers and change no process-wide state`);
