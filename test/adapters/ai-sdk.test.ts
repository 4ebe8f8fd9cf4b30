import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { commandProcessesWithMarker, eventually } from "../tools/shell/survivors.js";
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

// AI SDK 7 needs Node 22; `.ci/run` runs this file on Node 22 and 24.
const skip = skipBelowNode(22, "the AI SDK adapter tests (ai@7)");

const usage = {
	inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
	outputTokens: { total: 1, text: 1, reasoning: undefined },
};

type Call = { id: string; name: string; input: Record<string, unknown> };

/** A model reply calling `calls` in one step. */
function toolStep(calls: Call[]) {
	return {
		content: calls.map((call) => ({
			type: "tool-call" as const,
			toolCallId: call.id,
			toolName: call.name,
			input: JSON.stringify(call.input),
		})),
		finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
		usage,
		warnings: [],
	};
}

const textStep = {
	content: [{ type: "text" as const, text: "Done." }],
	finishReason: { unified: "stop" as const, raw: "stop" },
	usage,
	warnings: [],
};

async function loadAll() {
	const [ai, test, adapter] = await Promise.all([
		import("ai"),
		import("ai/test"),
		import("../../src/adapters/ai-sdk/index.js"),
	]);
	return { ...ai, ...test, ...adapter };
}

describe.skipIf(skip)("toolbelt/ai-sdk with the AI SDK's mock language model", () => {
	const dir = useTempDir();
	const markedShell = useMarkedShell();

	it("runs two parallel reads before the edit of the same reply, and applies the edit", async () => {
		const { generateText, isStepCount, MockLanguageModelV4, createAiSdkTools } = await loadAll();
		await writeProject(dir());
		const recorder = orderRecorder();
		const model = new MockLanguageModelV4({
			doGenerate: [
				toolStep([
					{ id: "r1", name: "read", input: { path: "a.txt" } },
					{ id: "r2", name: "read", input: { path: "b.txt" } },
					{ id: "e1", name: "edit", input: { path: "a.txt", oldText: "alpha", newText: "omega" } },
				]),
				textStep,
			],
		});
		const result = await generateText({
			model,
			tools: createAiSdkTools(dir(), { hooks: recorder.hooks }),
			prompt: "Edit a.txt",
			stopWhen: isStepCount(2),
		});
		expect(await readFile(join(dir(), "a.txt"), "utf8")).toBe("omega line\n");
		const events = recorder.events;
		expect(at(events, "start:e1")).toBeGreaterThan(at(events, "end:r1"));
		expect(at(events, "start:e1")).toBeGreaterThan(at(events, "end:r2"));
		const outputs = result.steps[0]?.toolResults.map((part) => JSON.stringify(part.output)) ?? [];
		expect(outputs[0]).toContain(A_TEXT.trim());
		expect(outputs[1]).toContain(B_TEXT.trim());
		expect(result.text).toBe("Done.");
	});

	it("kills the whole bash process tree when the SDK's abort signal fires", async () => {
		const { generateText, MockLanguageModelV4, createAiSdkTools } = await loadAll();
		const { marker, env } = markedShell();
		const controller = new AbortController();
		const model = new MockLanguageModelV4({
			doGenerate: [toolStep([{ id: "b1", name: "bash", input: { command: SLEEPER_TREE } }]), textStep],
		});
		const run = generateText({
			model,
			tools: createAiSdkTools(dir(), { toolsOptions: { bash: { env } } }),
			prompt: "sleep",
			abortSignal: controller.signal,
		});
		// The SDK settles an aborted tool call as a tool error (or rejects the run); either way the tree must be gone.
		const settled = run.then(
			(result) => result.steps[0]?.content.filter((part) => part.type === "tool-error").length ?? 0,
			() => 1,
		);
		expect(await eventually(() => commandProcessesWithMarker(marker).length >= 3, 10_000)).toBe(true);
		controller.abort();
		expect(await settled).toBe(1);
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0, 10_000)).toBe(true);
	});

	it("reports a safety block to the model as a tool error", async () => {
		const { generateText, isStepCount, MockLanguageModelV4, createAiSdkTools } = await loadAll();
		await writeProject(dir());
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false });
		const model = new MockLanguageModelV4({
			doGenerate: [toolStep([{ id: "x1", name: "read", input: { path: "/etc/hostname" } }]), textStep],
		});
		const result = await generateText({
			model,
			tools: createAiSdkTools(dir(), { safety }),
			prompt: "read outside",
			stopWhen: isStepCount(2),
		});
		const errors = result.steps[0]?.content.filter((part) => part.type === "tool-error") ?? [];
		expect(errors).toHaveLength(1);
		expect(String((errors[0] as { error: unknown }).error)).toMatch(/outside/i);
		expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toMatch(/outside/i);
	});

	it("runs a code program whose inner calls pass the safety layer", async () => {
		const { generateText, isStepCount, MockLanguageModelV4, createAiSdkTools } = await loadAll();
		await writeProject(dir());
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false, mode: "accept-edits" });
		const model = new MockLanguageModelV4({
			doGenerate: [toolStep([{ id: "c1", name: "code", input: { code: CODE_PROGRAM } }]), textStep],
		});
		const result = await generateText({
			model,
			tools: createAiSdkTools(dir(), { safety, tools: ["read", "edit", "code"] }),
			prompt: "run a program",
			stopWhen: isStepCount(2),
		});
		const outputs = result.steps[0]?.toolResults.map((part) => JSON.stringify(part.output)) ?? [];
		expect(outputs).toHaveLength(1);
		await expectCodeProgramRan(dir(), outputs[0] ?? "");
	});

	it("gives the model an image read as an image part", async () => {
		const { generateText, isStepCount, MockLanguageModelV4, createAiSdkTools } = await loadAll();
		await writeProject(dir());
		const model = new MockLanguageModelV4({
			doGenerate: [toolStep([{ id: "i1", name: "read", input: { path: "pixel.png" } }]), textStep],
		});
		await generateText({ model, tools: createAiSdkTools(dir()), prompt: "look", stopWhen: isStepCount(2) });
		const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === "tool");
		const part = toolMessage?.content[0];
		expect(part?.type).toBe("tool-result");
		const output = (part as { output: { type: string; value: { type: string; mediaType?: string }[] } }).output;
		expect(output.type).toBe("content");
		expect(output.value.some((block) => block.type.startsWith("file") && block.mediaType === "image/png")).toBe(true);
	});

	it("streams a running shell's output as preliminary tool results", async () => {
		const { streamText, simulateReadableStream, MockLanguageModelV4, createAiSdkTools } = await loadAll();
		const finish = (unified: "tool-calls" | "stop") => ({
			type: "finish" as const,
			finishReason: { unified, raw: unified },
			usage,
		});
		const model = new MockLanguageModelV4({
			doStream: [
				{
					stream: simulateReadableStream({
						chunks: [
							{
								type: "tool-call" as const,
								toolCallId: "s1",
								toolName: "bash",
								// The second line waits until the first has been reported, so there is progress to see.
								input: JSON.stringify({ command: "echo first; sleep 1; echo second" }),
							},
							finish("tool-calls"),
						],
					}),
				},
				{
					stream: simulateReadableStream({
						chunks: [
							{ type: "text-start" as const, id: "t" },
							{ type: "text-delta" as const, id: "t", delta: "Done." },
							{ type: "text-end" as const, id: "t" },
							finish("stop"),
						],
					}),
				},
			],
		});
		const result = streamText({
			model,
			tools: createAiSdkTools(dir(), { updateIntervalMs: 0 }),
			prompt: "run",
			stopWhen: (await import("ai")).isStepCount(2),
		});
		const preliminary: string[] = [];
		let final = "";
		for await (const part of result.fullStream) {
			if (part.type !== "tool-result") continue;
			if (part.preliminary) preliminary.push(JSON.stringify(part.output));
			else final = JSON.stringify(part.output);
		}
		expect(preliminary.some((output) => output.includes("first") && !output.includes("second"))).toBe(true);
		expect(final).toContain("second");
	});
});
