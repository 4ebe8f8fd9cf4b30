import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { agentLoop } from "../../src/agent/agent-loop.js";
import { createToolSession } from "../../src/engine/session.js";
import { createJobRegistry, createTool, type JobRegistry } from "../../src/tools/index.js";
import { createFakeModelStream, fakeModel, textReply, toolCallReply } from "../helpers/fake-model-stream.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { commandProcessesWithMarker, killMarked, newMarker } from "../tools/shell/survivors.js";

const markers: string[] = [];
const registries: JobRegistry[] = [];

afterEach(async () => {
	for (const registry of registries.splice(0)) await registry.dispose();
	for (const marker of markers.splice(0)) killMarked(marker);
});

/** A bash tool and its job tools whose processes carry a fresh marker, and a TERM-ignoring server script. */
function jobTools(cwd: string) {
	const { marker, env } = newMarker();
	markers.push(marker);
	const jobs = createJobRegistry();
	registries.push(jobs);
	const options = { jobs, bash: { env } };
	const tools = [createTool("bash", cwd, options), createTool("bash_output", cwd, options)];
	// Ignores TERM and starts a grandchild in its own session: the tree kill must still end both.
	const command = "trap '' TERM; setsid sleep 300 & echo started; while true; do sleep 1; done";
	return { marker, jobs, tools, command };
}

function startJobReply(command: string) {
	return toolCallReply([{ id: "start", name: "bash", arguments: { command, run_in_background: true } }]);
}

describe("background jobs and the agent run", () => {
	const tempDir = useTempDir();

	it("a job the run started is killed, tree and all, before Agent.prompt() resolves", async () => {
		const { marker, tools, command } = jobTools(tempDir());
		const fake = createFakeModelStream([startJobReply(command), textReply("server started")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn, tools });
		const added = await agent.prompt("start the server");
		const startResult = added.find((message) => message.role === "toolResult");
		expect(startResult && resultText(startResult)).toContain("Started job-1");
		expect(commandProcessesWithMarker(marker)).toEqual([]);
	});

	it("agentLoop ends the run's jobs before agent_end, and bash_output later says how the job ended", async () => {
		const { marker, tools, command } = jobTools(tempDir());
		const fake = createFakeModelStream([startJobReply(command), textReply("done")]);
		const stream = agentLoop([], { messages: [], tools }, { model: fakeModel, streamFn: fake.streamFn });
		let aliveAtEnd: number[] | undefined;
		for await (const event of stream) {
			if (event.type === "agent_end") aliveAtEnd = commandProcessesWithMarker(marker);
		}
		expect(aliveAtEnd).toEqual([]);
		const output = tools[1];
		await expect(output?.execute("poll", { id: "job-1" }, undefined)).rejects.toThrow(
			/job-1 has ended .*end of its session/,
		);
	});

	it("a session passed by the caller keeps the job across prompts until the caller ends it", async () => {
		const { marker, jobs, tools, command } = jobTools(tempDir());
		const session = createToolSession();
		const fake = createFakeModelStream([startJobReply(command), textReply("started"), textReply("still there")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn, tools, session });
		await agent.prompt("start it");
		await agent.prompt("is it running?");
		expect(jobs.runningCount()).toBe(1);
		expect(commandProcessesWithMarker(marker).length).toBeGreaterThan(0);
		await session.end();
		expect(jobs.runningCount()).toBe(0);
		expect(commandProcessesWithMarker(marker)).toEqual([]);
	});

	it("a job that ended on its own needs no kill at the end, and a clean-up registered after the end runs at once", async () => {
		const { tools } = jobTools(tempDir());
		const session = createToolSession();
		const fake = createFakeModelStream([startJobReply("echo quick"), textReply("ok")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn, tools, session });
		const added = await agent.prompt("run it");
		const startResult = added.find((message) => message.role === "toolResult");
		expect(startResult?.role === "toolResult" && startResult.isError).toBe(false);
		expect(startResult && resultText(startResult)).toMatch(/Started job-1[\s\S]*quick[\s\S]*exited with code 0/);
		await session.end();
		let ran = false;
		session.onEnd(() => {
			ran = true;
		});
		await new Promise((resolve) => setImmediate(resolve));
		expect(ran).toBe(true);
	});
});
