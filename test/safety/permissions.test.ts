import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { AgentTool, AnyAgentTool } from "../../src/engine/types.js";
import { createSafetyLayer, type SafetyLayerOptions } from "../../src/safety/index.js";
import type { PermissionAnswer, PermissionRequest } from "../../src/safety/permissions/permissions.js";
import { projectSettingsPath, SettingsError } from "../../src/safety/settings/settings.js";
import { createBashTool } from "../../src/tools/bash.js";
import { createEditTool } from "../../src/tools/edit.js";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { createLsTool } from "../../src/tools/ls.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, runCalls, textOf } from "./run-calls.js";

const tempDir = useTempDir();

function paths() {
	return { project: join(tempDir(), "project"), homeDir: join(tempDir(), "home") };
}

async function tools(): Promise<AnyAgentTool[]> {
	const { project } = paths();
	await mkdir(project, { recursive: true });
	return [createReadTool(project), createWriteTool(project), createEditTool(project), createBashTool(project)];
}

/** An ask callback that answers from a script and records every prompt. */
function scripted(...answers: PermissionAnswer[]) {
	const prompts: PermissionRequest[] = [];
	const ask = async (request: PermissionRequest) => {
		prompts.push(request);
		return answers.shift() ?? "no";
	};
	return { prompts, ask };
}

async function layer(options: Partial<SafetyLayerOptions> = {}) {
	const { project, homeDir } = paths();
	await mkdir(project, { recursive: true });
	return createSafetyLayer({ cwd: project, homeDir, ...options });
}

describe("permission layer", () => {
	it("refuses a mode it does not know, naming the ones it does", async () => {
		const options = { cwd: tempDir(), homeDir: tempDir(), mode: "acceptEdits" } as unknown as SafetyLayerOptions;
		await expect(createSafetyLayer(options)).rejects.toThrow(/"acceptEdits".*accept-edits/);
	});

	it("default mode: reads run, writes and commands ask; yes runs, no blocks with nothing written", async () => {
		const { project } = paths();
		const { prompts, ask } = scripted("no", "yes");
		const safety = await layer({ ask });
		const toolset = await tools();
		await writeFile(join(project, "a.txt"), "hello\n");
		expect((await runCall(toolset, safety.hooks, "read", { path: "a.txt" })).isError).toBe(false);
		expect(prompts).toHaveLength(0);
		const declined = await runCall(toolset, safety.hooks, "write", { path: "new.txt", content: "x" });
		expect(declined.isError).toBe(true);
		expect(textOf(declined)).toMatch(/user declined/);
		expect(existsSync(join(project, "new.txt"))).toBe(false);
		expect(prompts[0]).toMatchObject({
			toolName: "write",
			summary: "write new.txt",
			rulesIfAlways: ["write(/new.txt)"],
		});
		const approved = await runCall(toolset, safety.hooks, "bash", { command: "echo hi > made.txt" });
		expect(approved.isError).toBe(false);
		expect(await readFile(join(project, "made.txt"), "utf8")).toBe("hi\n");
		expect(prompts[1]).toMatchObject({
			summary: "bash: echo hi > made.txt",
			reason: "commands need approval in default mode",
		});
	});

	it("approve always: the rule lands in the project settings, and the identical call does not prompt again", async () => {
		const { project, homeDir } = paths();
		const { prompts, ask } = scripted("always");
		const safety = await layer({ ask });
		const toolset = await tools();
		const first = await runCall(toolset, safety.hooks, "bash", { command: "printf one && printf two" });
		expect(first.isError).toBe(false);
		expect(prompts).toHaveLength(1);
		expect(prompts[0]?.rulesIfAlways).toEqual(["bash(printf one)", "bash(printf two)"]);
		const second = await runCall(toolset, safety.hooks, "bash", { command: "printf one && printf two" });
		expect(second.isError).toBe(false);
		expect(prompts).toHaveLength(1);
		const settings = JSON.parse(await readFile(projectSettingsPath(project), "utf8"));
		expect(settings.permissions.allow).toEqual(["bash(printf one)", "bash(printf two)"]);
		// A new session reads the rule from the file: no prompt, and no callback needed.
		const next = await createSafetyLayer({ cwd: project, homeDir });
		expect((await runCall(toolset, next.hooks, "bash", { command: "printf one && printf two" })).isError).toBe(false);
		// The rule is exact: a different command still needs approval.
		expect((await runCall(toolset, next.hooks, "bash", { command: "printf one && rm -rf x" })).isError).toBe(true);
	});

	it("approve always for a file write allows exactly that path", async () => {
		const { project } = paths();
		const { prompts, ask } = scripted("always");
		const safety = await layer({ ask });
		const toolset = await tools();
		expect((await runCall(toolset, safety.hooks, "write", { path: "src/a[1].ts", content: "1" })).isError).toBe(false);
		expect((await runCall(toolset, safety.hooks, "write", { path: "src/a[1].ts", content: "2" })).isError).toBe(false);
		expect(prompts).toHaveLength(1);
		expect(await readFile(join(project, "src", "a[1].ts"), "utf8")).toBe("2");
		const other = await runCall(toolset, safety.hooks, "write", { path: "src/a1.ts", content: "x" });
		expect(other.isError).toBe(true);
		expect(prompts).toHaveLength(2);
	});

	it("parallel calls that need approval are asked one at a time, and an always settles the identical ones waiting", async () => {
		const prompts: string[] = [];
		let open = 0;
		let maxOpen = 0;
		const safety = await layer({
			ask: async (request) => {
				open++;
				maxOpen = Math.max(maxOpen, open);
				prompts.push(request.summary);
				await new Promise((resolve) => setTimeout(resolve, 20));
				open--;
				return "always";
			},
		});
		const probe: AgentTool = {
			name: "probe",
			description: "a parallel tool that is not read-only",
			parameters: Type.Object({ n: Type.Number() }),
			execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
		};
		const messages = await runCalls([probe], safety.hooks, [
			["probe", { n: 1 }],
			["probe", { n: 2 }],
			["probe", { n: 3 }],
		]);
		expect(messages.every((message) => !message.isError)).toBe(true);
		expect(maxOpen).toBe(1);
		expect(prompts).toHaveLength(1);
	});

	it("without an ask callback, ask means deny with a reason the model can act on", async () => {
		const { project } = paths();
		const safety = await layer();
		const message = await runCall(await tools(), safety.hooks, "write", { path: "a.txt", content: "x" });
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/needs the user's approval .* cannot ask the user.*"write\(\/a\.txt\)"/s);
		expect(existsSync(join(project, "a.txt"))).toBe(false);
	});

	it("deny rules beat allow rules and yolo; read-only mode denies every change", async () => {
		const { project } = paths();
		const toolset = await tools();
		const yolo = await layer({ mode: "yolo", rules: { allow: ["bash"], deny: ["bash(rm:*)"] } });
		await writeFile(join(project, "keep.txt"), "keep\n");
		const denied = await runCall(toolset, yolo.hooks, "bash", { command: "true && sudo rm keep.txt" });
		expect(textOf(denied)).toMatch(/Permission denied.*"bash\(rm:\*\)" \(command line\)/s);
		expect(existsSync(join(project, "keep.txt"))).toBe(true);
		expect((await runCall(toolset, yolo.hooks, "bash", { command: "echo fine" })).isError).toBe(false);

		const { ask, prompts } = scripted("yes");
		const readOnly = await layer({ mode: "read-only", rules: { allow: ["write", "bash"] }, ask });
		expect(textOf(await runCall(toolset, readOnly.hooks, "write", { path: "n.txt", content: "x" }))).toMatch(
			/read-only mode/,
		);
		expect(textOf(await runCall(toolset, readOnly.hooks, "bash", { command: "touch n.txt" }))).toMatch(
			/read-only mode/,
		);
		expect(existsSync(join(project, "n.txt"))).toBe(false);
		expect((await runCall(toolset, readOnly.hooks, "read", { path: "keep.txt" })).isError).toBe(false);
		expect(prompts).toHaveLength(0);
	});

	it("a path deny rule holds however the path is spelled ('@', surrounding spaces)", async () => {
		const { project } = paths();
		const toolset = await tools();
		await mkdir(join(project, "secrets"), { recursive: true });
		await writeFile(join(project, "secrets", "key.txt"), "hunter2\n");
		const yolo = await layer({ mode: "yolo", rules: { deny: ["read(secrets/**)"] } });
		for (const path of ["secrets/key.txt", "@secrets/key.txt", " secrets/key.txt ", `@${project}/secrets/key.txt`]) {
			const message = await runCall(toolset, yolo.hooks, "read", { path });
			expect(message.isError, path).toBe(true);
			expect(textOf(message)).not.toContain("hunter2");
		}
	});

	it("path rules hold in a project reached through a symlink", async () => {
		const { project, homeDir } = paths();
		await mkdir(join(project, "src"), { recursive: true });
		const link = join(tempDir(), "link-to-project");
		await symlink(project, link);
		const safety = await createSafetyLayer({ cwd: link, homeDir, rules: { allow: ["write(src/**)"] } });
		const toolset = [createWriteTool(link)];
		expect((await runCall(toolset, safety.hooks, "write", { path: "src/a.ts", content: "a" })).isError).toBe(false);
		expect(await readFile(join(project, "src", "a.ts"), "utf8")).toBe("a");
		expect((await runCall(toolset, safety.hooks, "write", { path: "lib/a.ts", content: "a" })).isError).toBe(true);
	});

	it("a read deny rule also stops grep, find and ls of that folder", async () => {
		const { project } = paths();
		await mkdir(join(project, "secrets"), { recursive: true });
		await writeFile(join(project, "secrets", "key.txt"), "TOKEN\n");
		const safety = await layer({ rules: { deny: ["read(secrets/**)"] } });
		const toolset = [...(await tools()), createGrepTool(project), createFindTool(project), createLsTool(project)];
		for (const [tool, args] of [
			["read", { path: "secrets/key.txt" }],
			["grep", { pattern: "TOKEN", path: "secrets" }],
			["find", { pattern: "*", path: "secrets" }],
			["ls", { path: "secrets" }],
		] as const) {
			const message = await runCall(toolset, safety.hooks, tool, args);
			expect(message.isError, tool).toBe(true);
			expect(textOf(message)).toMatch(/Permission denied/);
			expect(textOf(message)).not.toContain("TOKEN\n");
		}
	});

	it("accept-edits runs file edits without asking but still asks for commands", async () => {
		const { project } = paths();
		const { ask, prompts } = scripted("no");
		const safety = await layer({ mode: "accept-edits", ask });
		const toolset = await tools();
		expect((await runCall(toolset, safety.hooks, "write", { path: "a.txt", content: "one\n" })).isError).toBe(false);
		expect(
			(await runCall(toolset, safety.hooks, "edit", { path: "a.txt", old_string: "one", new_string: "two" })).isError,
		).toBe(false);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("two\n");
		expect(prompts).toHaveLength(0);
		expect((await runCall(toolset, safety.hooks, "bash", { command: "true" })).isError).toBe(true);
		expect(prompts).toHaveLength(1);
	});

	it("settings rules apply: allow edit(src/**) runs without a prompt, ask rules prompt even when allowed", async () => {
		const { project } = paths();
		await mkdir(join(project, ".toolbelt"), { recursive: true });
		await writeFile(
			projectSettingsPath(project),
			JSON.stringify({ permissions: { allow: ["write(src/**)", "bash(git:*)"], ask: ["bash(git push:*)"] } }),
		);
		const { ask, prompts } = scripted("no");
		// The project's allow rules widen what runs: they apply in a trusted folder only.
		const safety = await layer({ ask, trustProject: true });
		const toolset = await tools();
		expect((await runCall(toolset, safety.hooks, "write", { path: "src/x.ts", content: "x" })).isError).toBe(false);
		expect((await runCall(toolset, safety.hooks, "bash", { command: "git --version" })).isError).toBe(false);
		expect(prompts).toHaveLength(0);
		expect((await runCall(toolset, safety.hooks, "bash", { command: "git push origin main" })).isError).toBe(true);
		expect(prompts[0]?.reason).toMatch(/"bash\(git push:\*\)"/);
		expect(prompts[0]?.rulesIfAlways).toEqual([]);
	});

	it("a malformed settings file stops the layer with an error naming the file", async () => {
		const { project } = paths();
		await mkdir(join(project, ".toolbelt"), { recursive: true });
		await writeFile(projectSettingsPath(project), '{ "permissions": { "allow": ["bash("] } }');
		await expect(layer()).rejects.toThrow(SettingsError);
		await expect(layer()).rejects.toThrow(projectSettingsPath(project));
	});

	it("the stale check runs before the prompt: no prompt for a write that would be refused", async () => {
		const { project } = paths();
		await mkdir(project, { recursive: true });
		await writeFile(join(project, "old.txt"), "precious\n");
		const { ask, prompts } = scripted("yes");
		const safety = await layer({ ask });
		const message = await runCall(await tools(), safety.hooks, "write", { path: "old.txt", content: "x" });
		expect(textOf(message)).toMatch(/have not read it/);
		expect(prompts).toHaveLength(0);
		expect(await readFile(join(project, "old.txt"), "utf8")).toBe("precious\n");
	});
});
