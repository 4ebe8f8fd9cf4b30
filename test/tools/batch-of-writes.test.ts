import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import { createLocalWorkspace } from "../../src/workspace/index.js";
import { type FileOperations, localFileOperations } from "../../src/workspace/local/files/operations.js";
import { schedulingKey } from "../../src/workspace/paths/scheduling-key.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

let next = 0;
function toolCall(name: string, args: Record<string, unknown>): ToolCall {
	return { type: "toolCall", id: `c${next++}`, name, arguments: args };
}

/** The local disk, with each new file's creation (the temp file of a write) first waiting for `beforeCreate`. */
function heldFiles(beforeCreate: (path: string) => Promise<void>): FileOperations {
	return {
		...localFileOperations,
		writeFile: async (path, data, options) => {
			await beforeCreate(path);
			return localFileOperations.writeFile(path, data, options);
		},
	};
}

describe("a batch of writes and reads of real files", () => {
	it("writes different files at once: each write's file is created only once both writes have begun", {
		timeout: 60_000,
	}, async () => {
		let begun = 0;
		let bothBegun: () => void = () => {};
		const both = new Promise<void>((resolve) => {
			bothBegun = resolve;
		});
		// The test's own barrier: written one after another, the first write would wait here for ever.
		const workspace = createLocalWorkspace(temp(), {
			files: heldFiles(() => {
				if (++begun === 2) bothBegun();
				return both;
			}),
		});
		const { messages } = await executeToolCalls({
			tools: [createWriteTool(temp(), { workspace })],
			toolCalls: [
				toolCall("write", { path: "a.txt", content: "a\n" }),
				toolCall("write", { path: "b.txt", content: "b\n" }),
			],
		});
		expect(messages.map((message) => message.isError)).toEqual([false, false]);
		expect(await readFile(join(temp(), "a.txt"), "utf8")).toBe("a\n");
		expect(await readFile(join(temp(), "b.txt"), "utf8")).toBe("b\n");
	});

	it("keeps two writes of one file in order, and a read after them sees the second", async () => {
		// Each creation waits for the event loop to go round, so a call free to start meanwhile would.
		const workspace = createLocalWorkspace(temp(), {
			files: heldFiles(() => new Promise((resolve) => setImmediate(resolve))),
		});
		const { messages } = await executeToolCalls({
			tools: [createWriteTool(temp(), { workspace }), createReadTool(temp(), { workspace })],
			toolCalls: [
				toolCall("write", { path: "same.txt", content: "first\n" }),
				toolCall("write", { path: "./same.txt", content: "second\n" }),
				toolCall("read", { path: "same.txt" }),
			],
		});
		expect(messages.map((message) => resultText(message).split(":")[0])).toEqual([
			"Created same.txt",
			"Replaced same.txt",
			expect.anything(),
		]);
		expect(resultText(messages[2] as never)).toContain("second");
		expect(await readFile(join(temp(), "same.txt"), "utf8")).toBe("second\n");
	});

	it("gives one key to the spellings of a name a disk or the path look-up may take as one", () => {
		const key = schedulingKey("/work/Notes/Screen Shot 10.31 PM.png");
		expect(schedulingKey("/work/notes/screen shot 10.31\u202fpm.png")).toBe(key);
		expect(schedulingKey("/work/NOTES/Screen\u00a0Shot 10.31 PM.png")).toBe(key);
		expect(schedulingKey("/work/café.txt")).toBe(schedulingKey("/work/cafe\u0301.txt"));
		expect(schedulingKey("/work/a\\nb.txt")).toBe(schedulingKey("/work/a\nb.txt"));
		expect(schedulingKey("/")).toBe("");
		expect(schedulingKey("/work/a.txt")).not.toBe(schedulingKey("/work/b.txt"));
	});
});
