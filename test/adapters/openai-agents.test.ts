import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { commandProcessesWithMarker, eventually } from "../tools/shell/survivors.js";
import { ScriptedAgentsModel, type ScriptedTurn } from "./agents-model.js";
import {
	A_TEXT,
	at,
	B_TEXT,
	CODE_PROGRAM,
	expectCodeProgramRan,
	orderRecorder,
	SLEEPER_TREE,
	skipBelowNode,
	useMarkedShell,
	writeProject,
} from "./scenario.js";

// @openai/agents 0.20 depends on openai 7, which needs Node 22; `.ci/run` runs this file on Node 22 and 24.
const skip = skipBelowNode(22, "the OpenAI Agents adapter tests (@openai/agents@0.20)");

async function loadAll() {
	const [agents, adapter] = await Promise.all([
		import("@openai/agents"),
		import("../../src/adapters/openai-agents/index.js"),
	]);
	return { ...agents, ...adapter };
}

/** Results the model got back, as JSON text, from its second request. */
function secondInput(model: ScriptedAgentsModel): string {
	return JSON.stringify(model.requests[1]?.input ?? []);
}

describe.skipIf(skip)("toolbelt/openai-agents with a scripted Model", () => {
	const dir = useTempDir();
	const markedShell = useMarkedShell();
	beforeAll(async () => {
		const { setTracingDisabled } = await loadAll();
		setTracingDisabled(true);
	});

	async function run(
		turns: ScriptedTurn[],
		options: Parameters<Awaited<ReturnType<typeof loadAll>>["createOpenAIAgentsTools"]>[1],
		signal?: AbortSignal,
	) {
		const { Agent, run: runAgent, createOpenAIAgentsTools } = await loadAll();
		const model = new ScriptedAgentsModel(turns);
		const agent = new Agent({
			name: "coder",
			instructions: "Code.",
			model,
			tools: createOpenAIAgentsTools(dir(), options),
		});
		const result = await runAgent(agent, "go", { maxTurns: 4, ...(signal ? { signal } : {}) });
		return { model, result, agent };
	}

	it("runs two parallel reads before the edit of the same reply, and applies the edit", async () => {
		await writeProject(dir());
		const recorder = orderRecorder();
		const { model, result } = await run(
			[
				{
					calls: [
						{ id: "r1", name: "read", input: { path: "a.txt" } },
						{ id: "r2", name: "read", input: { path: "b.txt" } },
						{ id: "e1", name: "edit", input: { path: "a.txt", oldText: "alpha", newText: "omega" } },
					],
				},
				{ text: "Done." },
			],
			{ hooks: recorder.hooks },
		);
		expect(result.finalOutput).toBe("Done.");
		expect(await readFile(join(dir(), "a.txt"), "utf8")).toBe("omega line\n");
		expect(at(recorder.events, "start:e1")).toBeGreaterThan(at(recorder.events, "end:r1"));
		expect(at(recorder.events, "start:e1")).toBeGreaterThan(at(recorder.events, "end:r2"));
		const seen = secondInput(model);
		expect(seen).toContain(A_TEXT.trim());
		expect(seen).toContain(B_TEXT.trim());
	});

	it("kills the whole bash process tree when the run's signal aborts", async () => {
		const { marker, env } = markedShell();
		const controller = new AbortController();
		const settled = run(
			[{ calls: [{ id: "b1", name: "bash", input: { command: SLEEPER_TREE } }] }, { text: "Done." }],
			{ toolsOptions: { bash: { env } } },
			controller.signal,
		).then(
			() => "resolved",
			() => "rejected",
		);
		expect(await eventually(() => commandProcessesWithMarker(marker).length >= 3, 10_000)).toBe(true);
		controller.abort();
		await settled;
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0, 10_000)).toBe(true);
	});

	it("reports a safety block to the model as a tool error", async () => {
		await writeProject(dir());
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false });
		const { model, result } = await run(
			[{ calls: [{ id: "x1", name: "read", input: { path: "/etc/hostname" } }] }, { text: "Done." }],
			{ safety },
		);
		expect(result.finalOutput).toBe("Done.");
		expect(secondInput(model)).toMatch(/outside/i);
	});

	it("runs a code program whose inner calls pass the safety layer", async () => {
		await writeProject(dir());
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false, mode: "accept-edits" });
		const { model, result } = await run(
			[{ calls: [{ id: "c1", name: "code", input: { code: CODE_PROGRAM } }] }, { text: "Done." }],
			{ safety, tools: ["read", "edit", "code"] },
		);
		expect(result.finalOutput).toBe("Done.");
		await expectCodeProgramRan(dir(), secondInput(model));
	});

	it("gives the model an image read as an image item", async () => {
		await writeProject(dir());
		const { model } = await run(
			[{ calls: [{ id: "i1", name: "read", input: { path: "pixel.png" } }] }, { text: "Done." }],
			{},
		);
		const items = (model.requests[1]?.input ?? []) as { type: string; output?: unknown }[];
		const result = items.find((item) => item.type === "function_call_result");
		expect(JSON.stringify(result?.output)).toMatch(/"type":"input_image"|"type":"image"/);
		expect(JSON.stringify(result?.output)).toContain("image/png");
	});

	it("turns the safety layer's ask into an SDK approval interruption, and runs the call once approved", async () => {
		const { Agent, run: runAgent, createOpenAIAgentsTools, createAgentsApprovalBridge } = await loadAll();
		const approvals = createAgentsApprovalBridge();
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false, ask: approvals.ask });
		const model = new ScriptedAgentsModel([
			{ calls: [{ id: "w1", name: "bash", input: { command: "echo approved > out.txt" } }] },
			{ text: "Done." },
		]);
		const agent = new Agent({
			name: "coder",
			model,
			tools: createOpenAIAgentsTools(dir(), { safety, approvals }),
		});
		const first = await runAgent(agent, "go", { maxTurns: 4 });
		expect(first.interruptions).toHaveLength(1);
		const interruption = first.interruptions[0];
		if (!interruption) throw new Error("no interruption");
		first.state.approve(interruption);
		const second = await runAgent(agent, first.state, { maxTurns: 4 });
		expect(second.finalOutput).toBe("Done.");
		expect(await readFile(join(dir(), "out.txt"), "utf8")).toBe("approved\n");
	});
});
