import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { createLangChainTools } from "../../src/adapters/langchain/index.js";
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
	useMarkedShell,
	writeProject,
} from "./scenario.js";

type Call = { id: string; name: string; args: Record<string, unknown> };

/**
 * One turn as LangChain runs it: the fake chat model (bound to the tools) replies with `calls`, and
 * every call is invoked concurrently, as LangGraph's ToolNode does. Returns the tool messages.
 */
async function turn(tools: DynamicStructuredTool[], calls: Call[], signal?: AbortSignal): Promise<ToolMessage[]> {
	const model = new FakeStreamingChatModel({
		chunks: [
			new AIMessageChunk({ content: "", tool_calls: calls.map((call) => ({ ...call, type: "tool_call" as const })) }),
		],
	});
	const reply = await model.bindTools(tools).invoke([new HumanMessage("go")]);
	const byName = new Map(tools.map((tool) => [tool.name, tool]));
	return Promise.all(
		(reply.tool_calls ?? []).map((call) => {
			const tool = byName.get(call.name);
			if (!tool) throw new Error(`no tool ${call.name}`);
			return tool.invoke({ ...call, type: "tool_call" }, signal ? { signal } : {}) as Promise<ToolMessage>;
		}),
	);
}

describe("toolbelt/langchain with LangChain's fake chat model", () => {
	const dir = useTempDir();
	const markedShell = useMarkedShell();

	it("runs two parallel reads before the edit of the same reply, and applies the edit", async () => {
		await writeProject(dir());
		const recorder = orderRecorder();
		const messages = await turn(createLangChainTools(dir(), { hooks: recorder.hooks }), [
			{ id: "r1", name: "read", args: { path: "a.txt" } },
			{ id: "r2", name: "read", args: { path: "b.txt" } },
			// LangChain validates arguments against the schema before the tool runs, so the schema's own
			// field names are used here (the AI SDK and Agents tests send legacy names the engine repairs).
			{ id: "e1", name: "edit", args: { path: "a.txt", old_string: "alpha", new_string: "omega" } },
		]);
		expect(await readFile(join(dir(), "a.txt"), "utf8")).toBe("omega line\n");
		expect(at(recorder.events, "start:e1")).toBeGreaterThan(at(recorder.events, "end:r1"));
		expect(at(recorder.events, "start:e1")).toBeGreaterThan(at(recorder.events, "end:r2"));
		expect(messages.map((message) => message.status)).toEqual(["success", "success", "success"]);
		expect(String(messages[0]?.content)).toContain(A_TEXT.trim());
		expect(String(messages[1]?.content)).toContain(B_TEXT.trim());
		expect(messages[2]?.artifact).toBeDefined();
	});

	it("kills the whole bash process tree when LangChain's signal aborts", async () => {
		const { marker, env } = markedShell();
		const controller = new AbortController();
		const tools = createLangChainTools(dir(), { toolsOptions: { bash: { env } } });
		// The call settles as an error tool message (or the invoke rejects); either way the tree must be gone.
		const settled = turn(tools, [{ id: "b1", name: "bash", args: { command: SLEEPER_TREE } }], controller.signal).then(
			(messages) => messages[0]?.status ?? "missing",
			() => "error",
		);
		expect(await eventually(() => commandProcessesWithMarker(marker).length >= 3, 10_000)).toBe(true);
		controller.abort();
		expect(await settled).toBe("error");
		expect(await eventually(() => commandProcessesWithMarker(marker).length === 0, 10_000)).toBe(true);
	});

	it("reports a safety block as a tool message with status error", async () => {
		await writeProject(dir());
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false });
		const [message] = await turn(createLangChainTools(dir(), { safety }), [
			{ id: "x1", name: "read", args: { path: "/etc/hostname" } },
		]);
		expect(message?.status).toBe("error");
		expect(message?.tool_call_id).toBe("x1");
		expect(String(message?.content)).toMatch(/outside/i);
	});

	it("runs a code program whose inner calls pass the safety layer", async () => {
		await writeProject(dir());
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false, mode: "accept-edits" });
		const [message] = await turn(createLangChainTools(dir(), { safety, tools: ["read", "edit", "code"] }), [
			{ id: "c1", name: "code", args: { code: CODE_PROGRAM } },
		]);
		expect(message?.status, String(message?.content)).toBe("success");
		await expectCodeProgramRan(dir(), String(message?.content));
	});

	it("gives the model an image read as a standard image block", async () => {
		await writeProject(dir());
		const [message] = await turn(createLangChainTools(dir()), [
			{ id: "i1", name: "read", args: { path: "pixel.png" } },
		]);
		const blocks = message?.content as { type: string; mimeType?: string; data?: string }[];
		const image = blocks.find((block) => block.type === "image");
		expect(image?.mimeType).toBe("image/png");
		expect(
			Buffer.from(image?.data ?? "", "base64")
				.subarray(1, 4)
				.toString(),
		).toBe("PNG");
	});
});
