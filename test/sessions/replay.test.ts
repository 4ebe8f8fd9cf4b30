import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { createSessionRecorder, readSessionFile, replaySession, SessionStore } from "../../src/sessions/index.js";
import { createFakeModel, fakeModel, textReply, toolCallReply } from "../../src/testing/index.js";
import { createCodingTools, createReadOnlyTools } from "../../src/tools/index.js";
import { createLocalWorkspace } from "../../src/workspace/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

describe("replaySession", () => {
	const tempDir = useTempDir();

	/** Records a session in a copy of `original`: parallel reads, an edit, a command that sees the edit. */
	async function recordSession() {
		const original = join(tempDir(), "original");
		await mkdir(original, { recursive: true });
		await writeFile(join(original, "a.txt"), "alpha\n");
		await writeFile(join(original, "b.txt"), "beta\n".repeat(50));
		await writeFile(join(original, "c.txt"), "gamma\n");
		const project = join(tempDir(), "project");
		await cp(original, project, { recursive: true });
		const store = SessionStore.open({ stateDir: join(tempDir(), "state") });
		const recorder = createSessionRecorder({ store, source: "library", cwd: project });
		const model = createFakeModel([
			toolCallReply([
				{ name: "read", arguments: { path: "a.txt" } },
				{ name: "read", arguments: { path: "b.txt" } },
				{ name: "read", arguments: { path: "c.txt" } },
			]),
			toolCallReply([
				{ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
				{ name: "bash", arguments: { command: "cat a.txt c.txt; echo took 12ms; date -u +%FT%T" } },
				{ name: "read", arguments: { path: "a.txt" } },
			]),
			textReply("Done."),
		]);
		const agent = new Agent({
			model: fakeModel,
			streamFn: model.streamFn,
			tools: createCodingTools(project),
			...recorder.wrapHooks({}),
		});
		agent.subscribe(recorder.onAgentEvent);
		await agent.prompt("Shout alpha");
		recorder.close();
		return { original, session: await readSessionFile(recorder.path) };
	}

	async function copyOf(original: string, name: string): Promise<string> {
		const copy = join(tempDir(), name);
		await cp(original, copy, { recursive: true });
		return copy;
	}

	function replayIn(cwd: string, session: Awaited<ReturnType<typeof recordSession>>["session"]) {
		return replaySession({ session, workspace: createLocalWorkspace(cwd), tools: createCodingTools(cwd) });
	}

	it("reports no divergence on an untouched copy, in another folder, with the batches in order", async () => {
		const { original, session } = await recordSession();
		const copy = await copyOf(original, "clone");
		const report = await replayIn(copy, session);
		expect(report.divergence).toBeUndefined();
		expect(report).toMatchObject({ calls: 6, replayed: 6, batches: 2 });
	});

	it("names the file and the call when a file differs before the call that reads it", async () => {
		const { original, session } = await recordSession();
		const copy = await copyOf(original, "changed");
		await writeFile(join(copy, "c.txt"), "GAMMA changed\n");
		const report = await replayIn(copy, session);
		expect(report.divergence).toMatchObject({
			kind: "file",
			batch: 1,
			index: 2,
			toolName: "read",
			path: join(copy, "c.txt"),
		});
		// Stopped after that batch.
		expect(report.batches).toBe(1);
	});

	it("names a result that differs: the replay's tools lack the edit tool", async () => {
		const { original, session } = await recordSession();
		const other = await copyOf(original, "tool-set");
		const report = await replaySession({
			session,
			workspace: createLocalWorkspace(other),
			tools: createReadOnlyTools(other),
		});
		expect(report.divergence).toMatchObject({ kind: "result", batch: 2, index: 0, toolName: "edit" });
		expect(report.divergence?.message).toMatch(/succeeded in the record and failed now/);
	});
});
