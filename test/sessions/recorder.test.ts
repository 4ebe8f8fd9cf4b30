import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import {
	createSessionRecorder,
	openSessionRecorder,
	readSessionFile,
	SessionStore,
	SessionStoreRefusedError,
	summarize,
	type ToolCallRecord,
} from "../../src/sessions/index.js";
import { createFakeModel, fakeModel, textReply, toolCallReply } from "../../src/testing/index.js";
import { createCodingTools } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("session recorder", () => {
	const tempDir = useTempDir();

	async function setup() {
		const cwd = join(tempDir(), "project");
		const stateDir = join(tempDir(), "state");
		await mkdir(cwd, { recursive: true });
		await writeFile(join(cwd, "notes.txt"), "buy milk\n");
		return { cwd, stateDir, store: SessionStore.open({ stateDir, workspaceFolders: [cwd] }) };
	}

	it("records messages, calls, decisions and fingerprints, private and redacted", async () => {
		const { cwd, stateDir, store } = await setup();
		const secret = "tb-test-secret-value-1234567890";
		const env = { ...process.env, DEPLOY_TOKEN: secret };
		const recorder = createSessionRecorder({
			store,
			source: "library",
			cwd,
			env,
			model: { provider: "fake", id: "m" },
		});
		const model = createFakeModel([
			toolCallReply([
				{ name: "read", arguments: { path: "notes.txt" } },
				{ name: "write", arguments: { path: "new.txt", content: "fresh\n" } },
				{ name: "bash", arguments: { command: `echo key sk-proj-abcdefghijklmnopqrstuvwx12 ${secret}` } },
				{ name: "bash", arguments: { command: "rm -rf /" } },
			]),
			textReply("Done."),
		]);
		const hooks = recorder.wrapHooks({
			beforeToolCall: ({ args }) =>
				String(args.command ?? "").startsWith("rm ") ? { block: true, reason: "rm is not allowed here" } : undefined,
		});
		const agent = new Agent({
			model: fakeModel,
			streamFn: model.streamFn,
			tools: createCodingTools(cwd),
			toolExecution: "parallel",
			...hooks,
		});
		agent.subscribe((event) => recorder.onAgentEvent(event));
		await agent.prompt("Read my notes");
		recorder.close();

		const folder = await stat(join(stateDir, "toolbelt", "sessions"));
		expect(folder.mode & 0o777).toBe(0o700);
		expect((await stat(recorder.path)).mode & 0o777).toBe(0o600);
		const text = await readFile(recorder.path, "utf8");
		expect(text).not.toContain(secret);
		expect(text).not.toContain("sk-proj-abcdefghijklmnopqrstuvwx12");
		expect(text).toContain("[redacted]");

		const session = await readSessionFile(recorder.path);
		expect(session.header).toMatchObject({ id: recorder.id, cwd, source: "library" });
		const calls = session.records.filter((record): record is ToolCallRecord => record.type === "tool_call");
		expect(calls.map((call) => [call.toolName, call.batch, call.index]).sort()).toEqual([
			["bash", 1, 2],
			["bash", 1, 3],
			["read", 1, 0],
			["write", 1, 1],
		]);
		const read = calls.find((call) => call.toolName === "read");
		expect(read?.files).toEqual([
			{ path: join(cwd, "notes.txt"), access: "read", before: { exists: true, size: 9, sha256: sha256("buy milk\n") } },
		]);
		const write = calls.find((call) => call.toolName === "write");
		expect(write?.files[0]).toMatchObject({
			access: "write",
			before: { exists: false },
			after: { exists: true, size: 6, sha256: sha256("fresh\n") },
		});
		const blocked = calls.find((call) => call.index === 3);
		expect(blocked?.decision).toEqual({ blocked: true, reason: "rm is not allowed here" });
		expect(blocked?.result.isError).toBe(true);
		expect(calls.find((call) => call.index === 2)?.decision.blocked).toBe(false);
		const summary = summarize(session);
		expect(summary).toMatchObject({ firstPrompt: "Read my notes", turns: 1, toolCalls: 4 });
		expect(session.records.filter((record) => record.type === "message").length).toBe(7);
	});

	it("refuses a sessions folder other users may write, and records nothing there", async () => {
		const stateDir = join(tempDir(), "state");
		await mkdir(join(stateDir, "toolbelt", "sessions"), { recursive: true });
		await chmod(join(stateDir, "toolbelt", "sessions"), 0o777);
		expect(() => SessionStore.open({ stateDir })).toThrow(SessionStoreRefusedError);
	});

	it("refuses a sessions folder inside the workspace", async () => {
		const cwd = tempDir();
		expect(() => SessionStore.open({ stateDir: join(cwd, "state"), workspaceFolders: [cwd] })).toThrow(
			/inside the workspace/,
		);
	});

	it("drops sessions past the age limit and the oldest past the size limit, keeping the current one", async () => {
		const stateDir = join(tempDir(), "state");
		const store = SessionStore.open({ stateDir, maxBytes: 3000, maxAgeMs: 60_000 });
		const ids: string[] = [];
		for (let second = 10; second < 15; second++) {
			const file = store.create(`20261202-0600${second}-00000${second - 10}`);
			file.append("x".repeat(999));
			file.close();
			ids.push(file.id);
		}
		const old = new Date(Date.now() - 120_000);
		await utimes(store.pathOf(ids[1] as string), old, old);
		await store.prune([ids[0] as string]);
		// Aged out: ids[1]. Then oldest first until 3,000 bytes: ids[2] goes; ids[0] is kept although oldest.
		expect((await store.ids()).sort()).toEqual([ids[0], ids[3], ids[4]]);
	});

	it("opens a recording without waiting for the prune, which runs as the recording closes", async () => {
		const stateDir = join(tempDir(), "state");
		const store = SessionStore.open({ stateDir, maxAgeMs: 60_000 });
		const file = store.create("20261202-060010-000000");
		file.append("old");
		file.close();
		const old = new Date(Date.now() - 120_000);
		await utimes(store.pathOf(file.id), old, old);
		const opened = await openSessionRecorder({ stateDir, maxAgeMs: 60_000, source: "library", cwd: tempDir() });
		const recorder = opened.recorder;
		if (!recorder) throw new Error(opened.refused);
		// The first call opens the recording: it waits for no `stat` of the sessions kept.
		expect((await store.ids()).sort()).toEqual([file.id, recorder.id].sort());
		recorder.close();
		await vi.waitFor(async () => expect(await store.ids()).toEqual([recorder.id]), { timeout: 5_000 });
	});

	it("stops a file at its size limit with a line that says so", async () => {
		const stateDir = join(tempDir(), "state");
		const store = SessionStore.open({ stateDir, maxFileBytes: 100 });
		const file = store.create();
		expect(file.append("a".repeat(50))).toBe(true);
		expect(file.append("b".repeat(60))).toBe(false);
		expect(file.append("c")).toBe(false);
		file.close();
		const lines = (await readFile(file.path, "utf8")).trim().split("\n");
		expect(lines).toHaveLength(2);
		expect(JSON.parse(lines[1] as string)).toMatchObject({ type: "cut" });
	});
});

describe("a record that cannot be written as JSON", () => {
	const tempDir = useTempDir();

	it("is recorded with the part it cannot write marked, and recording goes on", async () => {
		const cwd = join(tempDir(), "project");
		await mkdir(cwd, { recursive: true });
		await writeFile(join(cwd, "notes.txt"), "buy milk\n");
		const store = SessionStore.open({ stateDir: join(tempDir(), "state"), workspaceFolders: [cwd] });
		const warnings: string[] = [];
		const recorder = createSessionRecorder({ store, source: "mcp", cwd, onWarning: (text) => warnings.push(text) });
		// Arguments 100,000 arrays deep (as an MCP client may send them): JSON.stringify overflows the
		// stack on them, and the recording of the rest of the session stopped.
		const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
		const tools = createCodingTools(cwd);
		for (const [id, args] of [
			["1", { path: "notes.txt", extra: deep }],
			["2", { path: "notes.txt" }],
		] as const) {
			await executeToolCalls({
				tools,
				toolCalls: [{ type: "toolCall", id, name: "read", arguments: args }],
				onEvent: (event) => recorder.onToolEvent(event),
				...recorder.wrapHooks({}),
			});
		}
		recorder.close();

		expect(warnings).toEqual([]);
		const session = await readSessionFile(recorder.path);
		const calls = session.records.filter((record): record is ToolCallRecord => record.type === "tool_call");
		expect(calls).toHaveLength(2);
		expect(JSON.stringify(calls[0])).toContain("not recorded");
		expect(calls[1]?.arguments).toEqual({ path: "notes.txt" });
	});
});
