import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { createCommandHooks, type HookFailure } from "../../src/safety/hooks/command-hooks.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import type { PermissionRequest } from "../../src/safety/permissions/permissions.js";
import type { HookMatcherSettings } from "../../src/safety/settings/settings.js";
import { createBashTool } from "../../src/tools/bash.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { processesWithArgument } from "../tools/shell/survivors.js";
import { runCall, textOf } from "./run-calls.js";

const tempDir = useTempDir();

/** Writes an executable hook script into the temp dir and returns its path. */
async function script(name: string, body: string): Promise<string> {
	const directory = join(tempDir(), "hooks");
	await mkdir(directory, { recursive: true });
	const path = join(directory, name);
	await writeFile(path, `#!/bin/sh\n${body}\n`);
	await chmod(path, 0o755);
	return path;
}

function project() {
	return join(tempDir(), "project");
}

async function tools(): Promise<AnyAgentTool[]> {
	await mkdir(project(), { recursive: true });
	return [createWriteTool(project()), createReadTool(project()), createBashTool(project())];
}

function pre(
	command: string,
	extra: Partial<HookMatcherSettings["hooks"][number]> = {},
	matcher = "write",
): HookMatcherSettings[] {
	return [{ matcher, hooks: [{ type: "command", command, ...extra }] }];
}

describe("PreToolUse command hooks", () => {
	it("exit 2 blocks the call with stderr as the reason: the write creates no file", async () => {
		const hook = await script(
			"deny.sh",
			'cat > /dev/null; echo "writes to generated files are not allowed" >&2; exit 2',
		);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook) }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "out.txt", content: "x" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toBe("writes to generated files are not allowed");
		expect(existsSync(join(project(), "out.txt"))).toBe(false);
	});

	it("sends session_id, cwd, hook_event_name, tool_name, tool_input (with file_path) and tool_use_id on stdin", async () => {
		const captured = join(tempDir(), "payload.json");
		const hook = await script(
			"capture.sh",
			`cat > "${captured}"; printf '%s' "$CLAUDE_PROJECT_DIR" > "${captured}.dir"`,
		);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook), sessionId: "session-1" }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "out.txt", content: "hello" });
		expect(message.isError).toBe(false);
		const payload = JSON.parse(await readFile(captured, "utf8"));
		expect(payload).toEqual({
			session_id: "session-1",
			cwd: project(),
			hook_event_name: "PreToolUse",
			permission_mode: "default",
			tool_name: "write",
			tool_input: { path: "out.txt", content: "hello", file_path: join(project(), "out.txt") },
			tool_use_id: message.toolCallId,
		});
		expect(await readFile(`${captured}.dir`, "utf8")).toBe(project());
		expect(await readFile(join(project(), "out.txt"), "utf8")).toBe("hello");
	});

	it("updatedInput replaces the arguments: the tool runs with exactly that", async () => {
		const hook = await script(
			"rewrite.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"path":"redirected.txt","content":"rewritten"}}}'`,
		);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook) }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "original.txt", content: "original" });
		expect(message.isError).toBe(false);
		expect(existsSync(join(project(), "original.txt"))).toBe(false);
		expect(await readFile(join(project(), "redirected.txt"), "utf8")).toBe("rewritten");
	});

	it("a Claude Code style updatedInput with file_path is mapped to path", async () => {
		const target = join(tempDir(), "project", "via-file-path.txt");
		const hook = await script(
			"claude.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"updatedInput":{"file_path":"${target}","content":"c"}}}'`,
		);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook) }).hooks();
		expect((await runCall(await tools(), hooks, "write", { path: "x.txt", content: "x" })).isError).toBe(false);
		expect(await readFile(target, "utf8")).toBe("c");
	});

	it("updatedInput that fails validation blocks the call", async () => {
		const hook = await script("bad.sh", `cat > /dev/null; echo '{"hookSpecificOutput":{"updatedInput":{"path":42}}}'`);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook) }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/rewrote the arguments.*content: is required/s);
		expect(existsSync(join(project(), "a.txt"))).toBe(false);
	});

	it("permissionDecision deny blocks with its reason; the legacy decision: block too", async () => {
		const deny = await script(
			"pd.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no rm here"}}'`,
		);
		const legacy = await script("legacy.sh", `cat > /dev/null; echo '{"decision":"block","reason":"legacy says no"}'`);
		for (const [hook, reason] of [
			[deny, "no rm here"],
			[legacy, "legacy says no"],
		] as const) {
			const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook, {}, "bash") }).hooks();
			const message = await runCall(await tools(), hooks, "bash", { command: "touch made-by-bash" });
			expect(message.isError).toBe(true);
			expect(textOf(message)).toBe(reason);
			expect(existsSync(join(project(), "made-by-bash"))).toBe(false);
		}
	});

	it("permissionDecision allow skips the prompt; ask forces one; deny rules still win", async () => {
		await tools();
		const allow = await script(
			"allow.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
		);
		const ask = await script(
			"ask.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`,
		);
		const homeDir = join(tempDir(), "home");
		const settings = (hook: string) => ({
			sources: [],
			rules: [],
			additionalDirectories: [],
			preToolUse: pre(hook, {}, "bash"),
			postToolUse: [],
			sandbox: {},
		});
		const allowed = await createSafetyLayer({ cwd: project(), homeDir, settings: settings(allow) });
		expect((await runCall(await tools(), allowed.hooks, "bash", { command: "echo ran" })).isError).toBe(false);
		const denied = await createSafetyLayer({
			cwd: project(),
			homeDir,
			settings: settings(allow),
			rules: { deny: ["bash(echo:*)"] },
		});
		expect(textOf(await runCall(await tools(), denied.hooks, "bash", { command: "echo ran" }))).toMatch(
			/Permission denied/,
		);
		const prompts: PermissionRequest[] = [];
		const asking = await createSafetyLayer({
			cwd: project(),
			homeDir,
			settings: settings(ask),
			rules: { allow: ["bash(echo:*)"] },
			ask: async (request) => {
				prompts.push(request);
				return "no";
			},
		});
		const message = await runCall(await tools(), asking.hooks, "bash", { command: "echo ran" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/declined/);
		expect(prompts).toHaveLength(1);
	});

	it("arguments rewritten by a hook still pass confinement and permissions", async () => {
		const outside = join(tempDir(), "outside.txt");
		const hook = await script(
			"escape.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":"${outside}","content":"x"}}}'`,
		);
		const toolset = await tools();
		const safety = await createSafetyLayer({
			cwd: project(),
			homeDir: join(tempDir(), "home"),
			mode: "yolo",
			settings: {
				sources: [],
				rules: [],
				additionalDirectories: [],
				preToolUse: pre(hook),
				postToolUse: [],
				sandbox: {},
			},
		});
		const message = await runCall(toolset, safety.hooks, "write", { path: "inside.txt", content: "x" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/outside the workspace/);
		expect(existsSync(outside)).toBe(false);
		expect(existsSync(join(project(), "inside.txt"))).toBe(false);
	});

	it("additionalContext from PreToolUse and PostToolUse is appended for the model; PostToolUse sees tool_response", async () => {
		const captured = join(tempDir(), "post.json");
		const before = await script(
			"ctx.sh",
			`cat > /dev/null; echo '{"hookSpecificOutput":{"additionalContext":"remember the style guide"}}'`,
		);
		const after = await script(
			"post.sh",
			`cat > "${captured}"; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatter ran"}}'`,
		);
		const hooks = createCommandHooks({
			cwd: project(),
			preToolUse: pre(before),
			postToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: after }] }],
		}).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" });
		expect(message.isError).toBe(false);
		expect(textOf(message)).toMatch(/remember the style guide\nformatter ran$/);
		const payload = JSON.parse(await readFile(captured, "utf8"));
		expect(payload.hook_event_name).toBe("PostToolUse");
		expect(payload.tool_response.is_error).toBe(false);
		expect(JSON.stringify(payload.tool_response.content)).toMatch(/a\.txt/);
	});

	it("PostToolUse exit 2 feeds stderr back to the model; the tool did run", async () => {
		const after = await script("lint.sh", 'cat > /dev/null; echo "lint: missing semicolon" >&2; exit 2');
		const hooks = createCommandHooks({ cwd: project(), postToolUse: pre(after) }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" });
		expect(textOf(message)).toMatch(/lint: missing semicolon/);
		expect(await readFile(join(project(), "a.txt"), "utf8")).toBe("x");
	});

	it("a hook that prints a megabyte is cut to a bounded text for the model", async () => {
		const noisy = await script("noisy.sh", "cat > /dev/null; seq 1 200000 >&2; exit 2");
		const after = createCommandHooks({ cwd: project(), postToolUse: pre(noisy) }).hooks();
		const fed = textOf(await runCall(await tools(), after, "write", { path: "b.txt", content: "x" }));
		expect(Buffer.byteLength(fed)).toBeLessThan(20 * 1024);
		expect(fed).toMatch(/Feedback from the PostToolUse hook .*\(the tool did run\): 1\n2\n3\n/s);
		expect(fed).toMatch(/\[Hook output truncated: showing 400 of \d+ lines/);
		const before = createCommandHooks({ cwd: project(), preToolUse: pre(noisy) }).hooks();
		const blocked = textOf(await runCall(await tools(), before, "write", { path: "c.txt", content: "x" }));
		expect(Buffer.byteLength(blocked)).toBeLessThan(20 * 1024);
		expect(existsSync(join(project(), "c.txt"))).toBe(false);
	});

	it("the matcher is a regex on the tool name: other tools are not hooked", async () => {
		const hook = await script("deny.sh", "cat > /dev/null; exit 2");
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook, {}, "bash|edit") }).hooks();
		expect((await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" })).isError).toBe(false);
		expect((await runCall(await tools(), hooks, "bash", { command: "true" })).isError).toBe(true);
	});

	it("a hook that crashes blocks by default, as a broken hook; onError continue lets the call run", async () => {
		const crash = await script("crash.sh", 'cat > /dev/null; echo "TypeError: boom" >&2; exit 1');
		const failures: HookFailure[] = [];
		const blocking = createCommandHooks({
			cwd: project(),
			preToolUse: pre(crash),
			onHookError: (failure) => failures.push(failure),
		}).hooks();
		const message = await runCall(await tools(), blocking, "write", { path: "a.txt", content: "x" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/PreToolUse hook is broken.*exit code 1: TypeError: boom/s);
		expect(existsSync(join(project(), "a.txt"))).toBe(false);
		expect(failures).toHaveLength(1);
		const lenient = createCommandHooks({ cwd: project(), preToolUse: pre(crash, { onError: "continue" }) }).hooks();
		expect((await runCall(await tools(), lenient, "write", { path: "a.txt", content: "x" })).isError).toBe(false);
	});

	it("a missing script is reported as a hook error, not as a deny", async () => {
		const missing = join(tempDir(), "hooks", "does-not-exist.sh");
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(missing) }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/hook is broken/);
		expect(textOf(message)).toMatch(/not found \(exit code 127\)/);
		expect(textOf(message)).not.toMatch(/denied/i);
		const lenient = createCommandHooks({ cwd: project(), preToolUse: pre(missing, { onError: "continue" }) }).hooks();
		expect((await runCall(await tools(), lenient, "write", { path: "a.txt", content: "x" })).isError).toBe(false);
	});

	it("a hook that times out is killed with its whole process group", async () => {
		// Found by a unique argument: a hook may run in a PID namespace, where `$!` is not the host's pid.
		const duration = `30.${process.pid}${Date.now() % 100_000}`;
		const slow = await script("slow.sh", `sleep ${duration} & sleep 30`);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(slow, { timeout: 1 }) }).hooks();
		const started = Date.now();
		const message = await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" });
		expect(Date.now() - started).toBeLessThan(6000);
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/timed out after 1 s/);
		expect(existsSync(join(project(), "a.txt"))).toBe(false);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(processesWithArgument(`sleep ${duration}`)).toEqual([]);
	});

	it("continue: false stops the run", async () => {
		const stop = await script("stop.sh", `cat > /dev/null; echo '{"continue":false,"stopReason":"budget exhausted"}'`);
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(stop) }).hooks();
		const result = await executeToolCalls({
			tools: await tools(),
			toolCalls: [{ type: "toolCall", id: "1", name: "write", arguments: { path: "a.txt", content: "x" } }],
			...hooks,
		});
		expect(result.terminate).toBe(true);
		expect(textOf(result.messages[0] as never)).toBe("budget exhausted");
	});
});

/** A PreToolUse/PostToolUse hook script that prints `stdout` verbatim and exits 0. */
async function answering(name: string, stdout: string): Promise<string> {
	const answer = join(tempDir(), `${name}.out`);
	await writeFile(answer, stdout);
	return script(`${name}.sh`, `cat > /dev/null; cat "${answer}"`);
}

describe("command hooks fail closed on answers they cannot act on", () => {
	const unreadable: [string, string, RegExp][] = [
		["maybe", '{"hookSpecificOutput":{"permissionDecision":"maybe"}}', /permissionDecision: "maybe"/],
		["number", '{"hookSpecificOutput":{"permissionDecision":1}}', /permissionDecision: 1,/],
		["capitalised", '{"hookSpecificOutput":{"permissionDecision":"Allow"}}', /permissionDecision: "Allow"/],
		["null", '{"hookSpecificOutput":{"permissionDecision":null}}', /permissionDecision: null/],
		[
			"wrong-event",
			'{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}',
			/answered for the event "PostToolUse"/,
		],
		["specific-not-object", '{"hookSpecificOutput":"allow"}', /hookSpecificOutput that is not an object/],
		["legacy-unknown", '{"decision":"deny"}', /decision: "deny", which is not "approve" or "block"/],
		["continue-string", '{"continue":"false"}', /continue: "false"/],
		["updated-not-object", '{"hookSpecificOutput":{"updatedInput":"rm -rf /"}}', /updatedInput that is not an object/],
		["invalid-json", '{"hookSpecificOutput": {', /invalid JSON/],
		["array", '[{"hookSpecificOutput":{"permissionDecision":"allow"}}]', /JSON that is not an object/],
		["buried", 'checking…\n{"hookSpecificOutput":{"permissionDecision":"deny"}}', /mixed with other text/],
	];
	for (const [name, stdout, problem] of unreadable) {
		it(`blocks the call, naming the hook: ${name}`, async () => {
			const hook = await answering(name, stdout);
			const failures: HookFailure[] = [];
			// onError: continue covers a crashing hook, never an answer that cannot be read.
			const hooks = createCommandHooks({
				cwd: project(),
				preToolUse: pre(hook, { onError: "continue" }, "bash"),
				onHookError: (failure) => failures.push(failure),
			}).hooks();
			const message = await runCall(await tools(), hooks, "bash", { command: "touch made-by-bash" });
			expect(message.isError).toBe(true);
			expect(textOf(message)).toContain(`PreToolUse hook "${hook}"`);
			expect(textOf(message)).toMatch(problem);
			expect(textOf(message)).toMatch(/never counts as permission/);
			expect(existsSync(join(project(), "made-by-bash"))).toBe(false);
			expect(failures).toEqual([expect.objectContaining({ event: "PreToolUse", command: hook, onError: "block" })]);
		});
	}

	it("plain text on stdout with exit 0 is no objection (as in Claude Code)", async () => {
		const hook = await answering("plain", "checked 3 rules, all fine\n");
		const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook, {}, "bash") }).hooks();
		expect((await runCall(await tools(), hooks, "bash", { command: "touch ok" })).isError).toBe(false);
		expect(existsSync(join(project(), "ok"))).toBe(true);
	});

	it("when the legacy decision and permissionDecision disagree, the stricter wins", async () => {
		for (const stdout of [
			'{"decision":"block","reason":"legacy no","hookSpecificOutput":{"permissionDecision":"allow"}}',
			'{"decision":"approve","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"new no"}}',
		]) {
			const hook = await answering("disagree", stdout);
			const hooks = createCommandHooks({ cwd: project(), preToolUse: pre(hook, {}, "bash") }).hooks();
			const message = await runCall(await tools(), hooks, "bash", { command: "touch made-by-bash" });
			expect(message.isError).toBe(true);
			expect(textOf(message)).toMatch(/^(legacy no|new no)$/);
			expect(existsSync(join(project(), "made-by-bash"))).toBe(false);
		}
	});

	it("a PostToolUse answer that cannot be acted on is told to the model; the tool did run", async () => {
		const hook = await answering("post-decision", '{"hookSpecificOutput":{"permissionDecision":"deny"}}');
		const hooks = createCommandHooks({ cwd: project(), postToolUse: pre(hook) }).hooks();
		const message = await runCall(await tools(), hooks, "write", { path: "a.txt", content: "x" });
		expect(textOf(message)).toMatch(/the tool ran, but the PostToolUse hook ".*" answered permissionDecision/);
		expect(await readFile(join(project(), "a.txt"), "utf8")).toBe("x");
	});
});
