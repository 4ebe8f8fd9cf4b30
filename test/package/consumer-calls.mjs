// Run by consumer-install.test.ts with node in a consumer's project where the packed toolbelt is
// installed: imports every export of the package as a user would, calls each tool once through the
// engine of another entry, and uses what finds files next to its module or is bundled with it (the
// build-time validators, the grammars' WebAssembly, the code tool's interpreter on a worker thread). Prints
// one JSON line for the test to check.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

const manifest = JSON.parse(readFileSync("node_modules/toolbelt/package.json", "utf8"));

// The calls first: "toolbelt/mcp" loads the MCP SDK, which loads ajv (see ajvLoaded).
const { executeToolCalls } = await import("toolbelt");
const { createAllTools } = await import("toolbelt/tools");
const project = join(process.cwd(), "project");
await mkdir(join(project, "src"), { recursive: true });
const tools = Object.values(createAllTools(project, {}));
let nextId = 0;

/** One call through the engine of "toolbelt", with tools made by "toolbelt/tools". */
async function call(name, args) {
	const toolCalls = [{ type: "toolCall", id: `c${nextId++}`, name, arguments: args }];
	const { messages } = await executeToolCalls({ tools, toolCalls });
	const [message] = messages;
	const text = message.content.map((part) => part.text ?? "").join("\n");
	return { isError: message.isError === true, text, details: message.details };
}

const good = "export function add(a: number, b: number): number {\n\treturn a + b;\n}\n";
const calls = {};
calls.write = await call("write", { path: "src/add.ts", content: good });
calls.read = await call("read", { path: "src/add.ts" });
calls.editRefused = await call("edit", {
	path: "src/add.ts",
	old_string: "return a + b;",
	new_string: "return (a + b;",
});
calls.edit = await call("edit", { path: "src/add.ts", old_string: "return a + b;", new_string: "return b + a;" });
calls.apply_patch = await call("apply_patch", {
	patch: "*** Begin Patch\n*** Add File: notes.txt\n+patched\n*** End Patch",
});
calls.bash = await call("bash", { command: "echo ok" });
calls.grep = await call("grep", { pattern: "b \\+ a" });
calls.find = await call("find", { pattern: "**/*.ts" });
calls.ls = await call("ls", { path: "." });
calls.code = await call("code", {
	code: 'const file = await tools.read({ path: "notes.txt" }); return "program saw " + file.text.trim();',
});
const job = await call("bash", { command: "sleep 30", run_in_background: true });
calls.background = job;
calls.bash_output = await call("bash_output", { id: job.details?.jobId });
calls.bash_kill = await call("bash_kill", { id: job.details?.jobId });

// The tools' arguments are checked by validators compiled at build time (bundled with the engine);
// a build that lost them compiles each schema with ajv at run time.
const ajvLoaded = Object.keys(createRequire(import.meta.url).cache).some((path) => /[\\/]ajv[\\/]/.test(path));

/** Each export's outcome: "loaded", or the name of the error its import threw (an absent framework). */
const imports = {};
const modules = {};
for (const subpath of Object.keys(manifest.exports)) {
	if (subpath === "./package.json") continue;
	const specifier = subpath === "." ? "toolbelt" : `toolbelt/${subpath.slice(2)}`;
	try {
		modules[specifier] = await import(specifier);
		imports[specifier] = "loaded";
	} catch (error) {
		imports[specifier] = error.name;
	}
}

/** Names two entries both export, and those of them that are not the same object in both. */
let sharedNames = 0;
const differing = [];
const loaded = Object.entries(modules);
for (const [index, [firstName, first]] of loaded.entries()) {
	for (const [secondName, second] of loaded.slice(index + 1)) {
		for (const name of Object.keys(first)) {
			if (!(name in second)) continue;
			sharedNames++;
			if (first[name] !== second[name]) differing.push(`${firstName} and ${secondName}: ${name}`);
		}
	}
}

console.log(
	JSON.stringify({
		resolved: import.meta.resolve("toolbelt"),
		imports,
		sharedNames,
		differing,
		calls,
		ajvLoaded,
	}),
);
// The code tool keeps a warm interpreter worker and the job registry its timers: end here.
process.exit(0);
