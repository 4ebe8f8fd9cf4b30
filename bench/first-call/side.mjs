// One side of one first-call row, in a fresh process: load the side's tools, create them, then time
// the row's calls (the first call of the process among them) and print one JSON line. Plain
// JavaScript, run by node directly, so no transpiler's start-up is in any side's figure.
//
// node side.mjs <toolbelt|base|pi-0.73|pi-1.6> <row> <data folder> <toolbelt's entry>
// (the module `import "toolbelt"` loads: dist/bundle/index.js, or dist/index.js of a build before
// the bundled entries; "base" is toolbelt built from another commit)
import { pathToFileURL } from "node:url";
import { ROWS } from "./rows.mjs";

const [side, rowName, dataDir, toolbeltEntry] = process.argv.slice(2);
const piPackages = {
	"pi-0.73": "@mariozechner/pi-coding-agent",
	"pi-1.6": "@earendil-works/pi-coding-agent",
};
const TOOL_NAMES = ["read", "write", "bash", "grep"];

const textOf = (content) =>
	content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");

/** `{ call(name, args), batch(calls) }` over toolbelt's engine: one batch is one model reply. */
async function toolbeltSide() {
	const toolbelt = await import(pathToFileURL(toolbeltEntry).href);
	const tools = TOOL_NAMES.map((name) => toolbelt.createTool(name, dataDir));
	let next = 0;
	const batch = async (calls) => {
		const toolCalls = calls.map(([name, args]) => ({ type: "toolCall", id: `c${next++}`, name, arguments: args }));
		const { messages } = await toolbelt.executeToolCalls({ tools, toolCalls });
		return messages.map((message) => ({ text: textOf(message.content), isError: message.isError === true }));
	};
	return { call: async (name, args) => (await batch([[name, args]]))[0], batch };
}

/** The same over pi's tools, called as its agent loop calls them (a batch side by side). */
async function piSide(packageName) {
	// Resolved from this folder, whose node_modules holds the peers.
	const pi = await import(packageName);
	const factories = {
		read: pi.createReadTool,
		write: pi.createWriteTool,
		bash: pi.createBashTool,
		grep: pi.createGrepTool,
	};
	const tools = Object.fromEntries(TOOL_NAMES.map((name) => [name, factories[name](dataDir)]));
	let next = 0;
	const call = async (name, args) => {
		try {
			const result = await tools[name].execute(`c${next++}`, args, undefined, undefined);
			return { text: textOf(result.content), isError: false };
		} catch (error) {
			return { text: String(error?.message ?? error), isError: true };
		}
	};
	return { call, batch: (calls) => Promise.all(calls.map(([name, args]) => call(name, args))) };
}

// No-ops whose lazy compile V8 logs as the row's calls begin and end (`--log-function-events`):
// bench/first-call/compiled.ts tells what the calls compiled from what the import did.
function callBegins() {}
function callEnds() {}

const row = ROWS[rowName];
if (!row) throw new Error(`no row ${rowName}`);
const tools = side === "toolbelt" || side === "base" ? await toolbeltSide() : await piSide(piPackages[side]);
const rssBefore = process.memoryUsage().rss;
// process.hrtime, not performance.now(): the first use of `performance` loads Node's perf_hooks
// (about 2 ms), which would spare any side that touches it in its call that load.
const started = process.hrtime.bigint();
callBegins();
const answer = await row.run(tools);
const ms = Number(process.hrtime.bigint() - started) / 1e6;
callEnds();
const ok = row.check(answer);
const peakGrowthMB = (process.resourceUsage().maxRSS * 1024 - rssBefore) / 2 ** 20;
console.log(
	JSON.stringify({
		ms,
		ok,
		peakGrowthMB: Math.max(0, peakGrowthMB),
		sample: ok ? undefined : JSON.stringify(answer).slice(0, 300),
	}),
);
process.exit(0);
