import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { createConfinementHook, Workspace } from "../../src/safety/confinement.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createEditTool } from "../../src/tools/edit.js";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { localFileOperations, realPathOf } from "../../src/tools/index.js";
import { createLsTool } from "../../src/tools/ls.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "./run-calls.js";

const realPath = (path: string) => realPathOf(localFileOperations, path);

const tempDir = useTempDir();

/** A project at <tmp>/proj, a sibling <tmp>/proj-evil, and a secret outside both. */
async function setup() {
	const project = join(tempDir(), "proj");
	const evil = join(tempDir(), "proj-evil");
	await mkdir(join(project, "src"), { recursive: true });
	await mkdir(evil, { recursive: true });
	await writeFile(join(project, "src", "a.ts"), "export const a = 1;\n");
	await writeFile(join(evil, "secret.txt"), "secret\n");
	await writeFile(join(tempDir(), "outside.txt"), "outside\n");
	await symlink(evil, join(project, "link-out"));
	await symlink(join(tempDir(), "nowhere", "new.txt"), join(project, "dangling"));
	const tools: AnyAgentTool[] = [
		createReadTool(project),
		createWriteTool(project),
		createEditTool(project),
		createLsTool(project),
		createGrepTool(project),
		createFindTool(project),
	];
	return { project, evil, tools };
}

describe("realPathOf (the workspace real path)", () => {
	it("follows existing symlinks, dangling ones, and keeps missing tails", async () => {
		const { project } = await setup();
		const root = await realPath(tempDir());
		expect(await realPath(join(project, "link-out", "secret.txt"))).toBe(join(root, "proj-evil", "secret.txt"));
		expect(await realPath(join(project, "dangling"))).toBe(join(root, "nowhere", "new.txt"));
		expect(await realPath(join(project, "new", "deep", "f.ts"))).toBe(join(root, "proj", "new", "deep", "f.ts"));
	});
});

describe("confinement through the engine", () => {
	it.each([
		["read", { path: "../outside.txt" }],
		["read", { path: "ABSOLUTE_OUTSIDE" }],
		["read", { path: "link-out/secret.txt" }],
		["read", { path: "../proj-evil/secret.txt" }],
		["ls", { path: ".." }],
		["grep", { pattern: "secret", path: "link-out" }],
		["find", { pattern: "*.txt", path: "../proj-evil" }],
	])("blocks %s %j", async (tool, args) => {
		const { project, tools } = await setup();
		const hooks = createConfinementHook(await Workspace.create({ cwd: project }));
		const resolved = { ...args, path: args.path === "ABSOLUTE_OUTSIDE" ? join(tempDir(), "outside.txt") : args.path };
		const message = await runCall(tools, hooks, tool, resolved);
		expect(message.isError).toBe(true);
		expect(textOf(message)).toMatch(/outside the workspace/);
		expect(textOf(message)).not.toMatch(/secret\n|outside\n/);
	});

	it("judges the path the tool really opens: '@/abs' and ' /abs' are outside, not names inside cwd", async () => {
		const { project, tools } = await setup();
		const hooks = createConfinementHook(await Workspace.create({ cwd: project }));
		const outside = join(tempDir(), "outside.txt");
		for (const path of [`@${outside}`, ` ${outside}`, `${outside}\n`]) {
			const read = await runCall(tools, hooks, "read", { path });
			expect(read.isError, path).toBe(true);
			expect(textOf(read)).toMatch(/outside the workspace/);
		}
		const write = await runCall(tools, hooks, "write", { path: `@${outside}`, content: "owned\n" });
		expect(write.isError).toBe(true);
		expect(await readFile(outside, "utf8")).toBe("outside\n");
		expect((await runCall(tools, hooks, "ls", { path: `@${tempDir()}` })).isError).toBe(true);
	});

	it("blocks a write through a symlink or a dangling symlink: no file is created outside", async () => {
		const { project, evil, tools } = await setup();
		const hooks = createConfinementHook(await Workspace.create({ cwd: project }));
		const viaLink = await runCall(tools, hooks, "write", { path: "link-out/planted.txt", content: "x" });
		expect(viaLink.isError).toBe(true);
		expect(existsSync(join(evil, "planted.txt"))).toBe(false);
		const viaDangling = await runCall(tools, hooks, "write", { path: "dangling", content: "x" });
		expect(viaDangling.isError).toBe(true);
		expect(textOf(viaDangling)).toMatch(/resolves to/);
		expect(existsSync(join(tempDir(), "nowhere"))).toBe(false);
		const edit = await runCall(tools, hooks, "edit", {
			path: "../proj-evil/secret.txt",
			old_string: "secret",
			new_string: "owned",
		});
		expect(edit.isError).toBe(true);
		expect(await readFile(join(evil, "secret.txt"), "utf8")).toBe("secret\n");
	});

	it("lets calls inside the workspace run, including the default path of ls, grep and find", async () => {
		const { project, tools } = await setup();
		const hooks = createConfinementHook(await Workspace.create({ cwd: project }));
		expect((await runCall(tools, hooks, "read", { path: "src/a.ts" })).isError).toBe(false);
		expect((await runCall(tools, hooks, "read", { path: join(project, "src", "a.ts") })).isError).toBe(false);
		expect((await runCall(tools, hooks, "ls", {})).isError).toBe(false);
		expect((await runCall(tools, hooks, "grep", { pattern: "const" })).isError).toBe(false);
		expect((await runCall(tools, hooks, "find", { pattern: "*.ts" })).isError).toBe(false);
		const write = await runCall(tools, hooks, "write", { path: "src/new/b.ts", content: "b\n" });
		expect(write.isError).toBe(false);
		expect(await readFile(join(project, "src", "new", "b.ts"), "utf8")).toBe("b\n");
	});

	it("the default path is checked too: ls, grep and find from a cwd outside the roots are blocked", async () => {
		const { project, evil, tools } = await setup();
		const hooks = createConfinementHook(await Workspace.create({ cwd: evil, roots: [project] }));
		const outsideTools = [createLsTool(evil), createGrepTool(evil), createFindTool(evil)];
		for (const [tool, args] of [
			["ls", {}],
			["grep", { pattern: "secret" }],
			["find", { pattern: "*" }],
		] as const) {
			const message = await runCall(outsideTools, hooks, tool, args);
			expect(message.isError, tool).toBe(true);
			expect(textOf(message)).toMatch(/outside the workspace/);
		}
		expect(tools.length).toBeGreaterThan(0);
	});

	it("extra roots are inside", async () => {
		const { project, evil, tools } = await setup();
		const hooks = createConfinementHook(await Workspace.create({ cwd: project, roots: [project, evil] }));
		const message = await runCall(tools, hooks, "read", { path: "../proj-evil/secret.txt" });
		expect(message.isError).toBe(false);
		expect(textOf(message)).toContain("secret");
	});
});

describe("protected paths", () => {
	it("write and edit of .git internals, .toolbelt and .env* need an explicit allow rule; reads do not", async () => {
		const { project, tools } = await setup();
		await mkdir(join(project, ".git"), { recursive: true });
		await writeFile(join(project, ".git", "config"), "[core]\n");
		await writeFile(join(project, ".env"), "TOKEN=1\n");
		const homeDir = join(tempDir(), "home");
		const layer = await createSafetyLayer({ cwd: project, homeDir, mode: "yolo", allowWriteWithoutRead: true });
		for (const [tool, args] of [
			["write", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" }],
			["edit", { path: ".git/config", old_string: "[core]", new_string: "[core]\n\thooksPath = x" }],
			["write", { path: ".toolbelt/settings.json", content: "{}" }],
			["write", { path: ".env.local", content: "X=1" }],
			["edit", { path: ".env", old_string: "TOKEN=1", new_string: "TOKEN=2" }],
		] as const) {
			const message = await runCall(tools, layer.hooks, tool, args);
			expect(message.isError, `${tool} ${args.path}`).toBe(true);
			expect(textOf(message)).toMatch(/protected path/);
		}
		expect(existsSync(join(project, ".git", "hooks"))).toBe(false);
		expect(existsSync(join(project, ".toolbelt"))).toBe(false);
		expect(existsSync(join(project, ".env.local"))).toBe(false);
		expect(await readFile(join(project, ".env"), "utf8")).toBe("TOKEN=1\n");
		expect((await runCall(tools, layer.hooks, "read", { path: ".git/config" })).isError).toBe(false);
		expect((await runCall(tools, layer.hooks, "write", { path: ".gitignore", content: "dist\n" })).isError).toBe(false);

		const allowed = await createSafetyLayer({
			cwd: project,
			homeDir,
			mode: "yolo",
			rules: { allow: ["write(.env.local)"] },
		});
		expect((await runCall(tools, allowed.hooks, "write", { path: ".env.local", content: "X=1\n" })).isError).toBe(
			false,
		);
		expect(await readFile(join(project, ".env.local"), "utf8")).toBe("X=1\n");
	});
});
