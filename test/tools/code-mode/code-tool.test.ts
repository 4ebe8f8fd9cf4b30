// Code mode through the engine, over real files and processes: a scripted model asks one code
// call; every call the program makes is a real call (hooks, barriers, events as children, abort).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import type { AgentTool, AnyAgentTool, ToolExecutionEvent } from "../../../src/engine/types.js";
import { createSafetyLayer } from "../../../src/safety/index.js";
import { type CodeToolOptions, createTool, type ToolName } from "../../../src/tools/index.js";
import { createFakeModelStream, fakeModel, textReply, toolCallReply } from "../../helpers/fake-model-stream.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { commandProcessesWithMarker, killMarked, newMarker } from "../shell/survivors.js";

// Each program starts an interpreter on a worker thread: room for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const markers: string[] = [];
afterEach(() => {
	for (const marker of markers.splice(0)) killMarked(marker);
});

const tempDir = useTempDir();

function toolsIn(cwd: string, names: ToolName[], code: CodeToolOptions = {}, env?: Record<string, string>) {
	return [...names, "code" as const].map((name) => createTool(name, cwd, { code, ...(env ? { bash: { env } } : {}) }));
}

async function runCode(tools: AnyAgentTool[], code: string, options: { signal?: AbortSignal } = {}) {
	const events: ToolExecutionEvent[] = [];
	const { messages } = await executeToolCalls({
		tools,
		toolCalls: [{ type: "toolCall", id: "program", name: "code", arguments: { code } }],
		onEvent: (event) => events.push(event),
		...options,
	});
	const message = messages[0]!;
	return { message, text: resultText(message), events };
}

/** A project with TODOs in two folders (three in src/a, one in src/b) and none in docs. */
async function todoProject(): Promise<string> {
	const root = tempDir();
	await mkdir(join(root, "src", "a"), { recursive: true });
	await mkdir(join(root, "src", "b"), { recursive: true });
	await mkdir(join(root, "docs"), { recursive: true });
	await writeFile(join(root, "src", "a", "one.ts"), "// TODO first in a\nexport const a = 1;\n// TODO second in a\n");
	await writeFile(join(root, "src", "a", "two.ts"), "export const b = 2; // TODO third in a\n");
	await writeFile(join(root, "src", "b", "three.ts"), "// TODO only in b\n");
	await writeFile(join(root, "docs", "readme.md"), "nothing to do\n");
	return root;
}

const todoProgram = `
const hits = await tools.grep({ pattern: "TODO", limit: 500 });
const byFolder: Record<string, string[]> = {};
for (const line of hits.text.split("\\n")) {
	const match = /^(src\\/[^/]+)\\/([^:]+):/.exec(line);
	if (match) (byFolder[match[1]] ??= []).push(match[1] + "/" + match[2]);
}
const folders = Object.entries(byFolder).sort((x, y) => y[1].length - x[1].length);
const firsts = await Promise.all(folders.map(([, files]) => tools.read({ path: files[0], limit: 1 })));
return folders.map(([folder, files], index) => ({ folder, todos: files.length, first: firsts[index].text.split("\\n")[0].trim() }));
`;

describe("code tool", () => {
	it("answers the TODO question in one code call of a scripted model", async () => {
		const root = await todoProject();
		const model = createFakeModelStream([
			toolCallReply([{ id: "c1", name: "code", arguments: { code: todoProgram } }]),
			textReply("src/a has the most TODOs."),
		]);
		const agent = new Agent({ model: fakeModel, streamFn: model.streamFn, tools: toolsIn(root, ["grep", "read"]) });
		const ends: ToolExecutionEvent[] = [];
		agent.subscribe((event) => {
			if (event.type === "tool_execution_end") ends.push(event);
		});
		await agent.prompt("Which folders have the most TODOs, and show me the first one in each?");
		expect(model.requests).toHaveLength(2);
		const toolResults = model.requests[1]!.context.messages.filter((message) => message.role === "toolResult");
		expect(toolResults).toHaveLength(1);
		const text = resultText(toolResults[0] as never);
		const answer = JSON.parse(text.slice(text.indexOf("["), text.lastIndexOf("]") + 1));
		expect(answer).toEqual([
			{ folder: "src/a", todos: 3, first: "1\t// TODO first in a" },
			{ folder: "src/b", todos: 1, first: "1\t// TODO only in b" },
		]);
		// The inner calls were real calls, shown as children of the code call.
		expect(ends.filter((event) => event.parentToolCallId === "c1").map((event) => event.toolName)).toEqual(
			expect.arrayContaining(["grep", "read", "read"]),
		);
		expect(ends.at(-1)).toMatchObject({ toolName: "code", toolCallId: "c1", isError: false });
	});

	it("starts an inner write only after the reads the program made before it ended", async () => {
		const root = tempDir();
		for (const name of ["a", "b", "c"]) await writeFile(join(root, `${name}.txt`), `${name} before\n`);
		const { message, text, events } = await runCode(
			toolsIn(root, ["read", "write"]),
			`const reads = ["a", "b"].map((name) => tools.read({ path: name + ".txt" }));
			const written = tools.write({ path: "a.txt", content: "a after\\n" });
			const [a, b] = await Promise.all(reads);
			await written;
			return [a.text, b.text, (await tools.read({ path: "a.txt" })).text];`,
		);
		expect(message.isError, text).toBe(false);
		expect(text).toContain("a before");
		expect(text).toContain("a after");
		const order = events
			.filter((event) => event.parentToolCallId === "program" && event.type !== "tool_execution_update")
			.map(
				(event) => `${event.type === "tool_execution_start" ? "start" : "end"} ${event.toolName} ${event.toolCallId}`,
			);
		const index = (entry: string) => order.indexOf(entry);
		// The write waited for both reads the program made before it.
		expect(index("start write program.3")).toBeGreaterThan(index("end read program.1"));
		expect(index("start write program.3")).toBeGreaterThan(index("end read program.2"));
		expect(await readFile(join(root, "a.txt"), "utf8")).toBe("a after\n");
	});

	it("runs two reading calls of a program side by side: each waits for the other to start, and both meet", async () => {
		// A real read ends in a millisecond, so whether two reads overlapped depends on the
		// machine's load; a reading tool that returns only once its partner has started shows the
		// overlap for certain (run one after the other, the first would wait out its 20 s alone).
		const arrived: Array<() => void> = [];
		const meetSchema = Type.Object({ name: Type.String() });
		const meet: AgentTool<typeof meetSchema> = {
			name: "meet",
			description: "Waits for a second meet call to start.",
			parameters: meetSchema,
			executionMode: "parallel",
			execute: (_id, args) =>
				new Promise((resolve) => {
					const done = (text: string) => resolve({ content: [{ type: "text", text }], details: {} });
					const timer = setTimeout(() => done(`${args.name} waited alone`), 20_000);
					arrived.push(() => {
						clearTimeout(timer);
						done(`${args.name} met`);
					});
					if (arrived.length === 2) for (const wake of arrived) wake();
				}),
		};
		const { message, text } = await runCode(
			[meet as AnyAgentTool, ...toolsIn(tempDir(), [])],
			`const [x, y] = await Promise.all([tools.meet({ name: "x" }), tools.meet({ name: "y" })]);
			return [x.text, y.text];`,
		);
		expect(message.isError, text).toBe(false);
		expect(text).toContain("x met");
		expect(text).toContain("y met");
	});

	it("throws a denied inner call inside the program with the message a direct call gets", async () => {
		const root = tempDir();
		const safety = await createSafetyLayer({
			cwd: root,
			homeDir: join(root, "home"),
			mode: "yolo",
			rules: { deny: ["bash"] },
		});
		const tools = toolsIn(root, ["bash", "read"]);
		const direct = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "direct", name: "bash", arguments: { command: "touch direct-marker" } }],
			...safety.hooks,
		});
		const { message, text } = await executeToolCalls({
			tools,
			toolCalls: [
				{
					type: "toolCall",
					id: "program",
					name: "code",
					arguments: {
						code: `try { await tools.bash({ command: "touch program-marker" }); return "ran"; } catch (error) { return { thrown: error.message, tool: error.tool }; }`,
					},
				},
			],
			...safety.hooks,
		}).then(({ messages }) => ({ message: messages[0]!, text: resultText(messages[0]!) }));
		expect(message.isError, text).toBe(false);
		const returned = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
		expect(returned).toEqual({ thrown: resultText(direct.messages[0]!), tool: "bash" });
		await expect(readFile(join(root, "program-marker"))).rejects.toThrow();
	});

	it("cancelling the code call kills an inner command's process tree", async () => {
		const root = tempDir();
		const { marker, env } = newMarker();
		markers.push(marker);
		const controller = new AbortController();
		const tools = toolsIn(root, ["bash"], {}, env);
		const running = runCode(
			tools,
			`await tools.bash({ command: "sleep 300 & sleep 301; wait" }); return "not reached";`,
			{
				signal: controller.signal,
			},
		);
		await vi.waitFor(() => expect(commandProcessesWithMarker(marker).length).toBeGreaterThan(0), {
			timeout: 30_000,
			interval: 100,
		});
		controller.abort();
		const { message, events } = await running;
		expect(message.isError).toBe(true);
		await vi.waitFor(() => expect(commandProcessesWithMarker(marker)).toEqual([]), { timeout: 15_000, interval: 100 });
		const innerEnd = events.find((event) => event.type === "tool_execution_end" && event.toolName === "bash");
		expect(innerEnd).toMatchObject({ parentToolCallId: "program", isError: true });
	});
});

describe("code tool bounds", () => {
	it("stops an endless loop at its interpreter time, naming the bound", async () => {
		const { message, text } = await runCode(toolsIn(tempDir(), ["ls"], { cpuMs: 300 }), "while (true) {}");
		expect(message.isError).toBe(true);
		expect(text).toMatch(/cpuMs bound/);
		expect(message.details).toMatchObject({ status: "bound", bound: "cpu" });
	});

	it("stops a memory hog at its memory bound", async () => {
		const { message, text } = await runCode(
			toolsIn(tempDir(), ["ls"], { memoryBytes: 16 * 1024 * 1024 }),
			"const kept = []; while (true) kept.push(new Array(100000).fill(kept.length));",
		);
		expect(message.isError).toBe(true);
		expect(text).toMatch(/memoryBytes bound/);
		expect(message.details).toMatchObject({ status: "bound", bound: "memory" });
	});

	it("stops a program at its tool-call bound (10,000 calls asked, 1,000 by default)", async () => {
		const root = tempDir();
		await writeFile(join(root, "f.txt"), "x\n");
		const { message, text } = await runCode(
			toolsIn(root, ["ls"]),
			`for (let index = 0; index < 10000; index++) await tools.ls({}); return "all done";`,
		);
		expect(message.isError).toBe(true);
		expect(text).toMatch(/more than 1000 tool calls \(the maxToolCalls bound\)/);
		expect(message.details).toMatchObject({ status: "bound", bound: "toolCalls", toolCalls: 1000 });
	});

	it("runs the next program on a fresh worker started when the last one ended, sharing nothing with it", async () => {
		const tools = toolsIn(tempDir(), ["read"], { memoryBytes: 48 * 1024 * 1024 });
		const first = await runCode(tools, "globalThis.left = 'from the first program'; return typeof left;");
		expect(first.message.isError, first.text).toBe(false);
		// The spare was made for this memory bound when the first program ended.
		const second = await runCode(tools, "return typeof globalThis.left;");
		expect(second.message.isError, second.text).toBe(false);
		expect(second.message.details).toMatchObject({ warmStart: true });
		expect(second.text).toContain("Returned:\nundefined");
		// Another bound cannot take that spare: its interpreter memory is sized at the start.
		const other = await runCode(toolsIn(tempDir(), ["read"], { memoryBytes: 40 * 1024 * 1024 }), "return 1;");
		expect(other.message.details).toMatchObject({ warmStart: false });
	});

	it("cuts a huge printed output and a huge returned value to the result budget, saying so", async () => {
		const { message, text } = await runCode(
			toolsIn(tempDir(), ["ls"]),
			`for (let i = 0; i < 5000; i++) console.log("line " + i); return "y".repeat(3_000_000);`,
		);
		expect(message.isError).toBe(false);
		expect(Buffer.byteLength(text)).toBeLessThan(60 * 1024);
		expect(text).toContain("line 0");
		expect(text).toMatch(/Result cut to/);
		expect(message.details).toMatchObject({ truncated: true, valueChars: 3_000_000 });
	});
});
