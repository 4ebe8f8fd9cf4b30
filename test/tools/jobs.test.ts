import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ToolError } from "../../src/engine/errors.js";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { createSandbox } from "../../src/safety/sandbox.js";
import { createJobRegistry, createTool, type JobRegistry, type ToolsOptions } from "../../src/tools/index.js";
import { disposeShellProcesses } from "../../src/workspace/local/process/background-registry.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import { ttyUnavailableReason } from "../../src/workspace/local/shell/tty-run.js";
import { requiredInCi, sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { commandProcessesWithMarker, eventually, killMarked, newMarker } from "./shell/survivors.js";

const markers: string[] = [];
const registries: JobRegistry[] = [];

afterEach(async () => {
	for (const registry of registries.splice(0)) await registry.dispose();
	await disposeShellProcesses();
	for (const marker of markers.splice(0)) {
		// No process of the test survives its end.
		const survivors = commandProcessesWithMarker(marker);
		killMarked(marker);
		expect(survivors).toEqual([]);
	}
});

interface Outcome {
	text: string;
	details: Record<string, unknown>;
	isError: boolean;
}

async function call(tool: AnyAgentTool, args: Record<string, unknown>, signal?: AbortSignal): Promise<Outcome> {
	try {
		const prepared = tool.prepareArguments ? tool.prepareArguments(args) : args;
		const result = await tool.execute("call", prepared as never, signal);
		return { text: resultText(result), details: result.details as Record<string, unknown>, isError: false };
	} catch (error) {
		if (!(error instanceof ToolError)) throw error;
		return { text: error.message, details: (error.details ?? {}) as Record<string, unknown>, isError: true };
	}
}

function session(cwd: string, registryOptions: Parameters<typeof createJobRegistry>[0] = {}) {
	const { marker, env } = newMarker();
	markers.push(marker);
	const jobs = createJobRegistry(registryOptions);
	registries.push(jobs);
	const options: ToolsOptions = { jobs, bash: { env } };
	return {
		marker,
		jobs,
		bash: createTool("bash", cwd, options),
		output: createTool("bash_output", cwd, options),
		kill: createTool("bash_kill", cwd, options),
	};
}

/** Polls bash_output until `text` shows up in the accumulated output (each wait is bounded). */
// Reads until the pattern shows or 60 s of waits have passed: a 5 MB flood through `tr | fold`
// took more than the 16 s the reads once allowed on a machine at load 18.
async function readUntil(
	output: AnyAgentTool,
	id: string,
	pattern: RegExp,
	already = "",
	rounds = 30,
): Promise<string> {
	let seen = already;
	for (let round = 0; round < rounds && !pattern.test(seen); round++) {
		const read = await call(output, { id, wait_seconds: 2 });
		seen += `${read.text}\n`;
		if (read.isError) return seen;
	}
	return seen;
}

// The reads below may wait up to a minute on a loaded machine.
vi.setConfig({ testTimeout: 90_000 });

describe("background jobs", () => {
	const tempDir = useTempDir();

	it("serves a loopback server while the model keeps working, then kills it", async () => {
		const { bash, output, kill, marker } = session(tempDir());
		const server = `node -e "require('http').createServer((q,s)=>s.end('pong')).listen(0,'127.0.0.1',function(){console.log('port '+this.address().port)})"`;
		const started = await call(bash, { command: server, run_in_background: true });
		expect(started.isError).toBe(false);
		const id = started.details.jobId as string;
		expect(id).toMatch(/^job-\d+$/);
		expect(started.text).toContain(id);
		const seen = await readUntil(output, id, /port \d+/, started.text);
		const port = Number(/port (\d+)/.exec(seen)?.[1]);
		const answer = await fetch(`http://127.0.0.1:${port}/`).then((response) => response.text());
		expect(answer).toBe("pong");
		expect(commandProcessesWithMarker(marker).length).toBeGreaterThan(0);
		const killed = await call(kill, { id });
		expect(killed.isError).toBe(false);
		expect(killed.text).toContain(`Killed ${id}`);
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0)).toBe(true);
	});

	it("returns only the output since the last read of a line-a-second script", async () => {
		const { bash, output } = session(tempDir());
		const started = await call(bash, {
			command: "for i in 1 2 3 4 5 6 7 8 9 10; do echo line $i; sleep 1; done",
			run_in_background: true,
		});
		const id = started.details.jobId as string;
		const first = await readUntil(output, id, /line 2/, started.text);
		expect(first).toContain("line 1");
		const next = await readUntil(output, id, /line \d/);
		expect(next).not.toContain("line 1\n");
		expect(next).toMatch(/line [3-9]/);
		const listing = await call(output, {});
		expect(listing.text).toContain(id);
		expect(listing.text).toContain("running");
	});

	it("drives a stdin reader through input, and reports input to a closed stdin", async () => {
		const { bash, output } = session(tempDir());
		const reader = `python3 -u -c "import sys
for line in sys.stdin: print('got', line.strip().upper(), flush=True)"`;
		const started = await call(bash, { command: reader, run_in_background: true });
		const id = started.details.jobId as string;
		const answered = await call(output, { id, input: "hello\n", wait_seconds: 5 });
		const seen = await readUntil(output, id, /got HELLO/, answered.text);
		expect(seen).toContain("got HELLO");
		const closer = await call(bash, { command: "exec 0<&-; sleep 30", run_in_background: true });
		const refused = await call(output, { id: closer.details.jobId, input: "x\n" });
		expect(refused.isError).toBe(true);
		expect(refused.text).toMatch(/stdin/);
	});

	it("kills a TERM-ignoring job and its setsid grandchildren", async () => {
		const { bash, kill, marker } = session(tempDir());
		const command =
			"trap '' TERM; setsid sleep 300 & setsid sh -c 'trap \"\" TERM; sleep 300' & echo ready; while true; do sleep 0.2; done";
		const started = await call(bash, { command, run_in_background: true });
		expect(await eventually(() => commandProcessesWithMarker(marker).length >= 3)).toBe(true);
		const killed = await call(kill, { id: started.details.jobId });
		expect(killed.isError).toBe(false);
		expect((killed.details.killedPids as number[]).length).toBeGreaterThanOrEqual(3);
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0, 5000)).toBe(true);
	});

	it("reports an exit once, then names the live jobs for the ended id", async () => {
		const { bash, output } = session(tempDir());
		const live = await call(bash, { command: "sleep 30", run_in_background: true });
		const quick = await call(bash, { command: "echo bye; exit 3", run_in_background: true });
		const id = quick.details.jobId as string;
		const report = quick.text.includes("exited") ? quick.text : await readUntil(output, id, /exited/);
		expect(report).toContain("bye");
		expect(report).toContain("exited with code 3");
		const again = await call(output, { id });
		expect(again.isError).toBe(true);
		expect(again.text).toContain("already reported");
		expect(again.text).toContain(live.details.jobId as string);
		const unknown = await call(output, { id: "job-999" });
		expect(unknown.isError).toBe(true);
		expect(unknown.text).toContain(live.details.jobId as string);
	});

	it("keeps a flood bounded: the tail, how much was left out, and the full file", async () => {
		const { bash, output } = session(tempDir());
		const started = await call(bash, {
			command: "head -c 5000000 /dev/zero | tr '\\0' 'x' | fold -w 100; echo END; sleep 30",
			run_in_background: true,
		});
		const id = started.details.jobId as string;
		const seen = await readUntil(output, id, /END/, started.text);
		expect(seen).toContain("END");
		expect(seen).toMatch(/not shown/);
		const withPath = /Full output: ([^\s\]]+)/.exec(seen);
		expect(withPath && existsSync(withPath[1] ?? "")).toBe(true);
	});

	it("refuses a start over the limit, naming the jobs to kill; filters lines", async () => {
		const { bash, output } = session(tempDir(), { maxJobs: 1 });
		const first = await call(bash, { command: "printf 'alpha\\nbeta\\ngamma\\n'; sleep 30", run_in_background: true });
		const second = await call(bash, { command: "sleep 30", run_in_background: true });
		expect(second.isError).toBe(true);
		expect(second.text).toContain(first.details.jobId as string);
		expect(second.text).toContain("bash_kill");
		const bad = await call(output, { id: first.details.jobId, filter: "(" });
		expect(bad.isError).toBe(true);
		expect(bad.text).toContain("regular expression");
	});

	it("a cancelled wait leaves the job running", async () => {
		const { bash, output, marker } = session(tempDir());
		const started = await call(bash, { command: "sleep 30", run_in_background: true });
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 100);
		const read = await call(output, { id: started.details.jobId, wait_seconds: 20 }, controller.signal);
		expect(read.text).toContain("running");
		expect(commandProcessesWithMarker(marker).length).toBeGreaterThan(0);
	});

	it("ends every job tree when the session is disposed", async () => {
		const { bash, jobs, marker } = session(tempDir());
		await call(bash, { command: "setsid sleep 300 & sleep 300", run_in_background: true });
		await call(bash, { command: "sleep 300", run_in_background: true });
		expect(await eventually(() => commandProcessesWithMarker(marker).length >= 3)).toBe(true);
		await jobs.dispose();
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0, 5000)).toBe(true);
	});
});

describe("a job under the sandbox", () => {
	const tempDir = useTempDir();

	it("stays sandboxed: the project is writable, the rest is not; it dies with the session", async (context) => {
		const unavailable = await sandboxUnavailableReason();
		if (unavailable) context.skip();
		const sandbox = await createSandbox({ writableRoots: [tempDir()] });
		const { marker, env } = newMarker();
		markers.push(marker);
		const jobs = createJobRegistry();
		registries.push(jobs);
		const outside = join(homedir(), `toolbelt-job-escape-${marker}`);
		const options: ToolsOptions = { jobs, bash: { env, operations: sandbox?.wrap(localShellOperations) } };
		const bash = createTool("bash", tempDir(), options);
		const output = createTool("bash_output", tempDir(), options);
		const command = `touch inside.txt && echo inside-ok; touch ${outside} 2>&1 || echo outside-refused; sleep 300`;
		const started = await call(bash, { command, run_in_background: true });
		const seen = await readUntil(output, started.details.jobId as string, /outside-refused/, started.text);
		expect(seen).toContain("inside-ok");
		expect(seen).toContain("outside-refused");
		expect(existsSync(outside)).toBe(false);
		expect(await eventually(() => commandProcessesWithMarker(marker).length > 0)).toBe(true);
		await jobs.dispose();
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0, 5000)).toBe(true);
	});
});

describe("tty", () => {
	const tempDir = useTempDir();

	it("runs a command under a terminal, foreground and background (a REPL)", async (context) => {
		// The pseudo-terminal package ships prebuilt binaries for CI's platform: there it must load.
		if (requiredInCi("a pseudo-terminal (@lydell/node-pty)", await ttyUnavailableReason()) !== undefined)
			context.skip();
		const { bash, output } = session(tempDir());
		const foreground = await call(bash, {
			command: "test -t 0 && test -t 1 && printf '\\033[31mis a tty\\033[0m\\n'",
			tty: true,
		});
		expect(foreground.isError).toBe(false);
		expect(foreground.text).toBe("is a tty");
		const repl = await call(bash, { command: "python3 -q -i", tty: true, run_in_background: true });
		const id = repl.details.jobId as string;
		await readUntil(output, id, />>>/, repl.text);
		const answered = await call(output, { id, input: "print(6*7)\n" });
		const seen = await readUntil(output, id, /42/, answered.text);
		expect(seen).toContain("42");
		expect(seen).not.toContain("\x1b");
	});
});
