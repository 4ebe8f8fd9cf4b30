#!/usr/bin/env node
// Keeps the wall clock out of deadlines and intervals: `Date.now()` jumps when the clock is set back
// (a wait that never ends) or forward (a wait cut short), so src/ measures time with the engine's
// `monotonicMs()`. `Date.now` may appear only in the files listed below, each for a time of day
// (written to disk, shown, compared with file mtimes or another machine's clock). A listed file that
// no longer uses it is a finding too, so the list stays the truth.
//   node scripts/wall-clock.mjs   (exit code 1 on any finding)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const root = resolve(new URL("..", import.meta.url).pathname);

/** The files (below src/) that read the wall clock, and the time of day they want it for. */
const allowed = {
	"agent/messages.ts": "message timestamps",
	"agent/providers/openai-completions.ts": "a unique suffix for a tool call id the server left out",
	"agent/providers/retry.ts": "a Retry-After HTTP date, set by the server's clock",
	"adapters/shared/tool-set.ts": "message timestamps",
	"engine/execute-tool-calls.ts": "tool result timestamps",
	"checkpoints/checkpoints.ts": "checkpoint times, stored on disk",
	"checkpoints/store.ts": "the age limit, against stored checkpoint times",
	"sessions/recorder.ts": "session record times, stored on disk",
	"sessions/session-store.ts": "record times and the age limit, against file mtimes",
	"cli/startup/code-cache-store.ts": "the age of a temporary file, from its mtime",
	"safety/sandbox/network/secrets/session-ca.ts": "certificate validity",
	"safety/sandbox/network/secrets/terminate.ts": "network audit record times",
	"safety/sandbox/network/tunnel.ts": "network audit record times",
	"safety/sandbox/network/proxy-server.ts": "network audit record times",
	"workspace/shell/output-tail.ts": "a unique file name",
	"safety/settings/settings.ts": "a unique temporary file name",
	"safety/settings/settings-disk.ts": "a unique temporary file name",
	"safety/trust/trust-store.ts": "a unique temporary file name",
	"cli/setup/user-config.ts": "a unique temporary file name",
};

/** Every .ts file below a folder (declaration files left out). */
function sourceFiles(folder) {
	return readdirSync(folder).flatMap((entry) => {
		const path = join(folder, entry);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return entry.endsWith(".ts") && !entry.endsWith(".d.ts") ? [path] : [];
	});
}

/** The 1-based lines of a file that name `Date.now` (called or passed on; comments do not count). */
function wallClockLines(file) {
	const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	const lines = [];
	const visit = (node) => {
		if (
			ts.isPropertyAccessExpression(node) &&
			node.name.text === "now" &&
			ts.isIdentifier(node.expression) &&
			node.expression.text === "Date"
		)
			lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
		ts.forEachChild(node, visit);
	};
	visit(source);
	return lines;
}

const src = join(root, "src");
const findings = [];
const using = new Set();
for (const file of sourceFiles(src)) {
	const name = relative(src, file).split(sep).join("/");
	const lines = wallClockLines(file);
	if (lines.length === 0) continue;
	using.add(name);
	if (allowed[name] === undefined) {
		for (const line of lines)
			findings.push(`src/${name}:${line}: Date.now() (measure intervals and deadlines with monotonicMs())`);
	}
}
for (const name of Object.keys(allowed)) {
	if (!using.has(name)) findings.push(`src/${name}: listed in scripts/wall-clock.mjs but reads no Date.now()`);
}
if (findings.length === 0) {
	console.log(`wall clock: Date.now() only in the ${using.size} files that want a time of day`);
} else {
	console.log(findings.join("\n"));
	console.log(`${findings.length} finding(s)`);
	process.exitCode = 1;
}
