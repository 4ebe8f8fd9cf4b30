import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AnyAgentTool, ToolCall, ToolHooks } from "../../src/engine/types.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { parseRule, RuleSet, subjectOf } from "../../src/safety/permissions/rules.js";
import { NestedGuard } from "../../src/safety/runs-later/nested-guard.js";
import { createSandbox } from "../../src/safety/sandbox.js";
import { loadShellParser, splitCommand } from "../../src/safety/shell-policy/index.js";
import { createBashTool } from "../../src/tools/bash.js";
import { createEditTool } from "../../src/tools/edit.js";
import { createReadTool } from "../../src/tools/read.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import type { ShellOperations } from "../../src/workspace/shell/exec-types.js";
import { median } from "../median.js";
import type { BenchCase, BenchContext } from "../types.js";

const FILE_COUNT = 200;
const HOOK_CALLS = 50;
const SANDBOX_COMMANDS = 20;
const GUARD_CALLS = 40;

/** A project with 200 small files, settings with a few rules, and a PreToolUse hook script. */
async function setup({ dataDir }: BenchContext): Promise<void> {
	const project = join(dataDir, "project");
	await mkdir(join(project, "src"), { recursive: true });
	await mkdir(join(project, ".toolbelt"), { recursive: true });
	for (let index = 0; index < FILE_COUNT; index++) {
		await writeFile(join(project, "src", `file-${index}.ts`), `export const value${index} = ${index};\n`.repeat(50));
	}
	await writeFile(
		join(project, ".toolbelt", "settings.json"),
		JSON.stringify({ permissions: { allow: ["edit(src/**)", "bash(npm run test:*)"], deny: ["read(~/.ssh/**)"] } }),
	);
	const hook = join(dataDir, "hook.sh");
	await writeFile(hook, "#!/bin/sh\ncat > /dev/null\nexit 0\n");
	await chmod(hook, 0o755);
}

function calls(name: string, count: number, args: (index: number) => Record<string, unknown>): ToolCall[] {
	return Array.from({ length: count }, (_, index) => ({
		type: "toolCall",
		id: `call-${index}`,
		name,
		arguments: args(index),
	}));
}

async function run(tools: AnyAgentTool[], hooks: ToolHooks, toolCalls: ToolCall[]): Promise<boolean> {
	const { messages } = await executeToolCalls({ tools, toolCalls, ...hooks });
	return messages.every((message) => !message.isError);
}

/** A project of 20,000 small files in 2,551 folders, as big as a mid-sized repository's working tree. */
async function setupLargeProject({ dataDir }: BenchContext): Promise<void> {
	const project = join(dataDir, "large-project");
	if (existsSync(join(project, "pkg49", "mod49", "file-7.ts"))) return;
	for (let outer = 0; outer < 50; outer++) {
		for (let inner = 0; inner < 50; inner++) {
			const folder = join(project, `pkg${outer}`, `mod${inner}`);
			await mkdir(folder, { recursive: true });
			for (let index = 0; index < 8; index++) await writeFile(join(folder, `file-${index}.ts`), "export {};\n");
		}
	}
}

/**
 * The smallest bwrap a per-call sandbox can be (the root read-only, a user namespace, nothing
 * else): the floor under any sandbox that starts bwrap for each command.
 */
function smallestBwrap(operations: ShellOperations): ShellOperations {
	const wrapped = (request: { file: string; args: string[] }) => ({
		file: "bwrap",
		args: ["--ro-bind", "/", "/", "--unshare-user", "--", request.file, ...request.args],
	});
	const { execToFile } = operations;
	return {
		...operations,
		exec: (request) => operations.exec({ ...request, ...wrapped(request) }),
		...(execToFile
			? { execToFile: (request, file) => execToFile.call(operations, { ...request, ...wrapped(request) }, file) }
			: {}),
	};
}

/**
 * Sandboxed minus bare `echo ok` per command in `dataDir/<folder>`: what the sandbox adds to a call
 * (bwrap, the mount points, the nested-repository watch before and after the call). Bare, the
 * smallest bwrap and the sandbox take turns call by call, so a change of load between them does
 * not show as a difference; medians.
 */
function sandboxStartup(name: string, folder: "project" | "large-project"): BenchCase {
	return {
		group: "safety",
		name,
		goal: "≤ 5 ms (issue 32); < 50 ms (issue 25)",
		maxMs: 5,
		setup: folder === "project" ? setup : setupLargeProject,
		toolbelt: async ({ dataDir }) => {
			const project = join(dataDir, folder);
			const sandbox = await createSandbox({ writableRoots: [project] });
			const sides = {
				bare: [createBashTool(project)],
				floor: [createBashTool(project, { operations: smallestBwrap(localShellOperations) })],
				sandboxed: [createBashTool(project, { operations: sandbox.wrap(localShellOperations) })],
			};
			const times: Record<keyof typeof sides, number[]> = { bare: [], floor: [], sandboxed: [] };
			let ok = true;
			for (let index = 0; index < SANDBOX_COMMANDS; index++) {
				for (const side of ["bare", "floor", "sandboxed"] as const) {
					const started = performance.now();
					ok =
						(await run(
							sides[side],
							{},
							calls("bash", 1, () => ({ command: "echo ok" })),
						)) && ok;
					times[side].push(performance.now() - started);
				}
			}
			await sandbox.close();
			const [bare, floor, sandboxed] = [median(times.bare), median(times.floor), median(times.sandboxed)];
			return {
				ok,
				ms: Math.max(0, sandboxed - bare),
				note: `bare ${bare.toFixed(1)} ms, sandboxed ${sandboxed.toFixed(1)} ms per command; bwrap's smallest form (root read-only, a user namespace) ${floor.toFixed(1)} ms: ${(floor - bare).toFixed(1)} ms over bare before any of the sandbox's protections`,
			};
		},
	};
}

/** Cost of the safety layer: rules, confinement, stale-write hashing and command hooks on real calls. */
export const cases: BenchCase[] = [
	{
		group: "safety",
		name: "layer overhead on 200 reads + 200 edits",
		goal: "< 1 ms per call (400 ms for 400 calls)",
		maxMs: 400,
		setup,
		beforeEach: setup,
		toolbelt: async ({ dataDir }) => {
			const project = join(dataDir, "project");
			const tools = [createReadTool(project), createEditTool(project)];
			const round = async (hooks: ToolHooks, step: number) => {
				const started = performance.now();
				const read = await run(
					tools,
					hooks,
					calls("read", FILE_COUNT, (index) => ({ path: `src/file-${index}.ts` })),
				);
				const edit = await run(
					tools,
					hooks,
					calls("edit", FILE_COUNT, (index) => ({
						path: `src/file-${index}.ts`,
						old_string: `value${index} = ${index + step};`,
						new_string: `value${index} = ${index + step + 1};`,
						replace_all: true,
					})),
				);
				return { ok: read && edit, ms: performance.now() - started };
			};
			const bare = await round({}, 0);
			const safety = await createSafetyLayer({
				cwd: project,
				homeDir: join(dataDir, "home"),
				mode: "accept-edits",
				// The bench's own project settings (rules to evaluate on every call).
				trustProject: true,
			});
			const guarded = await round(safety.hooks, 1);
			return {
				ok: bare.ok && guarded.ok,
				ms: Math.max(0, guarded.ms - bare.ms),
				note: `tools alone ${bare.ms.toFixed(0)} ms, with the layer ${guarded.ms.toFixed(0)} ms`,
			};
		},
	},
	{
		group: "safety",
		name: "split + match 10,000 compound commands",
		// The `< 100 ms` of the hand-written splitter (2–9 µs a command) is gone with it: issue 25 asks for a
		// real parser, whose parse and tree walk cost most of the 60–90 µs a command measured quietly. A
		// command it judges then costs a process spawn of ≥ 9 ms, so 100 µs is ≤ 1% of the call.
		goal: "< 1 s (100 µs a command)",
		maxMs: 1000,
		toolbelt: async () => {
			const rules = new RuleSet(
				["bash(npm run test:*)", "bash(git status)", "bash(git diff:*)"].map((text) =>
					parseRule(text, "allow", "bench"),
				),
				{ root: "/proj", homeDir: "/home" },
			);
			await loadShellParser();
			const started = performance.now();
			let allowed = 0;
			for (let index = 0; index < 10_000; index++) {
				const command = `npm run test -- --grep "case ${index}" && git status | tee log.txt; git diff $(git merge-base HEAD main)`;
				if (rules.evaluate("bash", subjectOf("bash", { command })).behavior === "allow") allowed++;
			}
			const ms = performance.now() - started;
			return {
				ok: allowed === 0 && splitCommand("a && b").length === 2,
				ms,
				note: `${((ms * 1000) / 10_000).toFixed(1)} µs a command; the merge-base part is not allowed`,
			};
		},
	},
	{
		group: "safety",
		name: "read + match 10,000 PowerShell commands",
		// PowerShell's grammar is larger than bash's; a parse costs 0.1–1 ms, idle to loaded.
		goal: "< 10 s (1 ms a command)",
		maxMs: 10_000,
		toolbelt: async () => {
			const rules = new RuleSet(
				["powershell(git status)", "powershell(Get-ChildItem:*)", "powershell(Remove-Item:*)"].map((text, index) =>
					parseRule(text, index === 2 ? "deny" : "allow", "bench"),
				),
				{ root: "/proj", homeDir: "/home" },
			);
			await loadShellParser("powershell");
			const started = performance.now();
			let denied = 0;
			for (let index = 0; index < 10_000; index++) {
				const command = `Get-ChildItem -Path 'src ${index}' | Select-Object Name > $null; git status && del "out-$env:USER.txt"`;
				if (rules.evaluate("powershell", subjectOf("powershell", { command })).behavior === "deny") denied++;
			}
			const ms = performance.now() - started;
			return {
				ok: denied === 10_000,
				ms,
				note: `${((ms * 1000) / 10_000).toFixed(1)} µs a command; del is Remove-Item`,
			};
		},
	},
	{
		group: "safety",
		name: "50 calls with a PreToolUse command hook",
		goal: "≤ 3× a shell loop spawning the script 50 times",
		maxRatio: 3,
		setup,
		toolbelt: async ({ dataDir }) => {
			const project = join(dataDir, "project");
			const hook = join(dataDir, "hook.sh");
			const safety = await createSafetyLayer({
				cwd: project,
				homeDir: join(dataDir, "home"),
				settings: {
					sources: [],
					rules: [],
					additionalDirectories: [],
					preToolUse: [{ matcher: "read", hooks: [{ type: "command", command: hook }] }],
					postToolUse: [],
					sandbox: {},
				},
			});
			const ok = await run(
				[createReadTool(project)],
				safety.hooks,
				calls("read", HOOK_CALLS, () => ({ path: "src/file-0.ts" })),
			);
			return { ok: ok && (await readFile(hook, "utf8")).includes("exit 0") };
		},
		baseline: `for i in $(seq ${HOOK_CALLS}); do echo '{}' | ./hook.sh; done`,
	},
	sandboxStartup("sandbox start-up: 20 × bash `echo ok`, sandboxed minus bare, per command", "project"),
	sandboxStartup(
		"sandbox start-up in a 20,000-file tree (2,551 folders): 20 × bash `echo ok`, sandboxed minus bare, per command",
		"large-project",
	),
	{
		group: "safety",
		name: "nested-repository watch in a 20,000-file tree (2,551 folders): before + after one sandboxed call",
		goal: "≤ 1 full pass of the tree a call",
		setup: setupLargeProject,
		toolbelt: async ({ dataDir }) => {
			const guard = new NestedGuard({ roots: [join(dataDir, "large-project")] });
			await guard.begin();
			guard.end();
			const perCall: number[] = [];
			const before: number[] = [];
			for (let call = 0; call < GUARD_CALLS; call++) {
				const started = performance.now();
				await guard.begin();
				before.push(performance.now() - started);
				// As the sandbox does when the command ran in its own PID namespace: one sweep after it.
				guard.sweep();
				guard.end({ swept: true });
				perCall.push(performance.now() - started);
			}
			guard.close();
			return {
				ok: true,
				ms: median(perCall),
				note: `median of ${GUARD_CALLS} calls; before the call ${median(before).toFixed(2)} ms`,
			};
		},
	},
];
