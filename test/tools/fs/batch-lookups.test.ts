import { chmod, mkdir, readFile, realpath, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import { composeHooks } from "../../../src/engine/hooks.js";
import type { AnyAgentTool, ToolCall, ToolHooks } from "../../../src/engine/types.js";
import { createCommandHooks } from "../../../src/safety/hooks/command-hooks.js";
import { createSafetyLayer } from "../../../src/safety/index.js";
import { createBashTool } from "../../../src/tools/bash.js";
import { createWriteTool } from "../../../src/tools/write.js";
import type { FileOperations } from "../../../src/workspace/files/contract.js";
import { localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { createLocalWorkspace, isWorkspaceTarget } from "../../../src/workspace/workspace.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

function writeCall(id: string, path: string, content = "x\n"): ToolCall {
	return { type: "toolCall", id, name: "write", arguments: { path, content } };
}

/** The real path each call's target was judged with, in call order. */
function judgedRealPaths(): { hooks: ToolHooks; seen: string[] } {
	const seen: string[] = [];
	return {
		seen,
		hooks: {
			beforeToolCall: async ({ target }) => {
				if (isWorkspaceTarget(target) && target.resolved) seen.push(target.resolved.realPath);
				return undefined;
			},
		},
	};
}

describe("a batch's calls share a folder's real path, and only the batch", () => {
	it("1,000 writes into one folder ask for its real path once", async () => {
		await mkdir(join(temp(), "w"));
		const asked: string[] = [];
		const files: FileOperations = {
			...localFileOperations,
			realpath: (path) => {
				asked.push(path);
				return localFileOperations.realpath(path);
			},
		};
		const tools = [createWriteTool(temp(), { workspace: createLocalWorkspace(temp(), { files }) }) as AnyAgentTool];
		const toolCalls = Array.from({ length: 1000 }, (_, index) => writeCall(`c${index}`, `w/f${index}.txt`));
		const { messages } = await executeToolCalls({ tools, toolCalls });
		expect(messages.every((message) => !message.isError)).toBe(true);
		expect(asked.filter((path) => path === join(temp(), "w"))).toHaveLength(1);
		expect(await readFile(join(temp(), "w", "f999.txt"), "utf8")).toBe("x\n");
	});

	it("a command in the batch that turns the folder into a link: later writes are judged where the link leads", async () => {
		await mkdir(join(temp(), "w"));
		await mkdir(join(temp(), "elsewhere"));
		const real = await realpath(temp());
		const tools = [createWriteTool(temp()), createBashTool(temp())] as AnyAgentTool[];
		const { hooks, seen } = judgedRealPaths();
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [
				writeCall("1", "w/a.txt"),
				{ type: "toolCall", id: "2", name: "bash", arguments: { command: "mv w w-old && ln -s elsewhere w" } },
				writeCall("3", "w/b.txt"),
			],
			...hooks,
		});
		expect(messages.map((message) => message.isError)).toEqual([false, false, false]);
		expect(seen).toEqual([join(real, "w", "a.txt"), join(real, "elsewhere", "b.txt")]);
		expect(await readFile(join(temp(), "elsewhere", "b.txt"), "utf8")).toBe("x\n");
	});

	it("a folder turned into a link between two batches: the second batch sees the link", async () => {
		await mkdir(join(temp(), "w"));
		await mkdir(join(temp(), "elsewhere"));
		const real = await realpath(temp());
		const tools = [createWriteTool(temp())] as AnyAgentTool[];
		const { hooks, seen } = judgedRealPaths();
		await executeToolCalls({ tools, toolCalls: [writeCall("1", "w/a.txt")], ...hooks });
		await rename(join(temp(), "w"), join(temp(), "w-old"));
		await symlink("elsewhere", join(temp(), "w"));
		await executeToolCalls({ tools, toolCalls: [writeCall("2", "w/b.txt")], ...hooks });
		expect(seen).toEqual([join(real, "w", "a.txt"), join(real, "elsewhere", "b.txt")]);
	});

	it.each(["command hooks alone", "the safety layer"])(
		"a PreToolUse command hook that turns the folder into a link (%s): the next write is judged where the link leads",
		async (through) => {
			await mkdir(join(temp(), "w"));
			await mkdir(join(temp(), "elsewhere"));
			const real = await realpath(temp());
			const hook = join(temp(), "swap.sh");
			// The user's own hook, on the first write of the batch only.
			await writeFile(
				hook,
				`#!/bin/sh\ncat > /dev/null\ncd '${temp()}' && [ -L w ] || { mv w w-old && ln -s elsewhere w; }\nexit 0\n`,
			);
			await chmod(hook, 0o755);
			const preToolUse = [{ matcher: "write", hooks: [{ type: "command" as const, command: hook }] }];
			const hookUnit =
				through === "the safety layer"
					? (
							await createSafetyLayer({
								cwd: temp(),
								homeDir: join(temp(), "home"),
								mode: "accept-edits",
								settings: {
									sources: [],
									rules: [],
									additionalDirectories: [],
									preToolUse,
									postToolUse: [],
									sandbox: {},
								},
							})
						).hooks
					: createCommandHooks({ cwd: temp(), preToolUse }).hooks();
			const { hooks, seen } = judgedRealPaths();
			const { messages } = await executeToolCalls({
				tools: [createWriteTool(temp())] as AnyAgentTool[],
				toolCalls: [writeCall("1", "w/a.txt"), writeCall("2", "w/b.txt")],
				...composeHooks([hookUnit, hooks]),
			});
			expect(messages.map((message) => message.isError)).toEqual([false, false]);
			// The first was judged (by the recorder, after the hook) on the target declared before the swap.
			expect(seen).toEqual([join(real, "w", "a.txt"), join(real, "elsewhere", "b.txt")]);
			expect(await readFile(join(temp(), "elsewhere", "b.txt"), "utf8")).toBe("x\n");
		},
	);
});
