#!/usr/bin/env node
// Keeps every signal to a child process on the one path that checks it has a pid: until Node
// reports a failed spawn (on the next tick), `ChildProcess.kill` signals a pid libuv never set, and
// Node 20 then sends it to pid 0, toolbelt's own process group (a whole CI run was ended so). So a
// `kill` on a `ChildProcess` may appear only in `signalChild` (src/workspace/local/process/signal.ts)
// and in the files listed below. Type-aware: a `kill` of anything else (a job, a search's run, a
// hook) is not a finding.
//   node scripts/child-signals.mjs   (exit code 1 on any finding)
import { relative, resolve, sep } from "node:path";
import ts from "typescript";

const root = resolve(new URL("..", import.meta.url).pathname);

/** Files below src/ that may call `ChildProcess.kill`, and why. */
const allowed = {
	"workspace/local/process/signal.ts": "signalChild itself",
	"safety/sandbox/network/bridge-programs.ts":
		"the network bridge's own program text (run as a process of its own), which kills its child from a signal handler, after any spawn failure is reported",
};

const configPath = ts.findConfigFile(root, ts.sys.fileExists, "tsconfig.json");
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root);
const srcFolder = `${root}${sep}src${sep}`;
const program = ts.createProgram({
	rootNames: config.fileNames.filter((file) => resolve(file).startsWith(srcFolder)),
	options: { ...config.options, noEmit: true },
});
const checker = program.getTypeChecker();

/** True when `type` is Node's `ChildProcess` or a type built on it (`ChildProcessWithoutNullStreams`…). */
function isChildProcess(type) {
	const seen = new Set();
	const visit = (current) => {
		if (!current || seen.has(current)) return false;
		seen.add(current);
		if (current.isUnion()) return current.types.some(visit);
		if (current.getSymbol()?.getName() === "ChildProcess") return true;
		// A generic one (`ChildProcessByStdio<…>`) is a reference to its declaration, which has the bases.
		if (current.target && visit(current.target)) return true;
		return (current.getBaseTypes?.() ?? []).some(visit);
	};
	return visit(checker.getNonNullableType(type));
}

const findings = [];
const used = new Set();
for (const source of program.getSourceFiles()) {
	const file = resolve(source.fileName);
	if (!file.startsWith(srcFolder)) continue;
	const name = relative(srcFolder, file).split(sep).join("/");
	const visit = (node) => {
		if (
			ts.isCallExpression(node) &&
			ts.isPropertyAccessExpression(node.expression) &&
			node.expression.name.text === "kill" &&
			isChildProcess(checker.getTypeAtLocation(node.expression.expression))
		) {
			used.add(name);
			if (name in allowed) return;
			const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
			findings.push(`src/${name}:${line}: ${node.getText(source)}: signal a child through signalChild`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
}

// A listed file that no longer signals a child is a finding too, so the list stays the truth.
for (const name of Object.keys(allowed))
	if (!used.has(name)) findings.push(`src/${name}: listed in scripts/child-signals.mjs but kills no child: take it off the list`);

if (findings.length > 0) {
	console.error(findings.join("\n"));
	console.error(
		"A child whose spawn failed has no pid until Node reports it; its kill then goes to pid 0 on Node 20 (toolbelt's own group): use signalChild (src/workspace/local/process/signal.ts).",
	);
	process.exit(1);
}
console.log(`child signals: ChildProcess.kill only in signalChild and ${Object.keys(allowed).length - 1} listed file`);
