import { chmod, lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCheckpoints } from "../../src/checkpoints/index.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createApplyPatchTool, createEditTool, createLocalWorkspace, createWriteTool } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

const dir = useTempDir();

/** Every entry below `root`: content and mode of files, targets of links. */
async function tree(root: string, prefix = ""): Promise<Record<string, string>> {
	const result: Record<string, string> = {};
	for (const name of (await readdir(join(root, prefix))).sort()) {
		const path = join(root, prefix, name);
		const info = await lstat(path);
		const key = prefix ? `${prefix}/${name}` : name;
		if (info.isSymbolicLink()) result[key] = `link -> ${await readlink(path)}`;
		else if (info.isDirectory()) Object.assign(result, await tree(root, key));
		else result[key] = `${(info.mode & 0o7777).toString(8)} ${(await readFile(path)).toString("base64")}`;
	}
	return result;
}

async function setup() {
	const project = join(dir(), "project");
	await mkdir(join(project, "src"), { recursive: true });
	await writeFile(join(project, "src", "b.ts"), "export const b = 1;\nexport const c = 2;\n");
	await writeFile(join(project, "run.sh"), "#!/bin/sh\necho hi\n");
	await chmod(join(project, "run.sh"), 0o755);
	await writeFile(join(project, "secret.txt"), "private\n");
	await chmod(join(project, "secret.txt"), 0o600);
	await writeFile(join(project, "target.txt"), "through a link\n");
	await symlink("target.txt", join(project, "link.txt"));
	await writeFile(join(project, "old-name.txt"), "moving\n");
	const workspace = createLocalWorkspace(project);
	const tools = [
		createWriteTool(project, { workspace }),
		createEditTool(project, { workspace }),
		createApplyPatchTool(project, { workspace }),
	];
	const checkpoints = await createCheckpoints({ workspace: project, stateDir: join(dir(), "state") });
	let id = 0;
	const call = async (name: string, args: Record<string, unknown>) => {
		const toolCalls: ToolCall[] = [{ type: "toolCall", id: String(++id), name, arguments: args }];
		const { messages } = await executeToolCalls({ tools, toolCalls, ...checkpoints.hooks });
		expect(messages[0]?.isError, JSON.stringify(messages[0]?.content)).toBe(false);
	};
	return { project, checkpoints, call };
}

describe("checkpoints and undo", () => {
	it("undoes a scripted session turn by turn, ending byte-identical to the start (modes and links too)", async () => {
		const { project, checkpoints, call } = await setup();
		const states = [await tree(project)];
		await call("write", { path: "new/a.txt", content: "created\n" });
		await call("edit", { path: "run.sh", old_string: "echo hi", new_string: "echo hello" });
		states.push(await tree(project));
		checkpoints.startTurn();
		await call("apply_patch", {
			patch: [
				"*** Begin Patch",
				"*** Update File: src/b.ts",
				"@@",
				"-export const c = 2;",
				"+export const c = 3;",
				"*** Delete File: secret.txt",
				"*** Update File: old-name.txt",
				"*** Move to: moved/new-name.txt",
				"*** Add File: src/c.ts",
				"+export {};",
				"*** End Patch",
			].join("\n"),
		});
		states.push(await tree(project));
		checkpoints.startTurn();
		await call("write", { path: "link.txt", content: "rewritten through the link\n" });
		await call("write", { path: "new/a.txt", content: "second version\n" });
		expect(new Set((await checkpoints.list()).map((checkpoint) => checkpoint.turn)).size).toBe(3);

		for (const expected of states.reverse()) {
			const report = await checkpoints.restore({ turns: 1 });
			expect(report.conflicts).toEqual([]);
			expect(await tree(project)).toEqual(expected);
		}
		expect(await checkpoints.list()).toEqual([]);
	});

	it("undoes single calls with --calls", async () => {
		const { project, checkpoints, call } = await setup();
		await call("write", { path: "x.txt", content: "1\n" });
		await call("write", { path: "x.txt", content: "2\n" });
		const report = await checkpoints.restore({ calls: 1 });
		expect(report.calls).toBe(1);
		expect(await readFile(join(project, "x.txt"), "utf8")).toBe("1\n");
	});

	it("refuses to overwrite a file changed outside after the checkpoint, lists it, and --force overrides", async () => {
		const { project, checkpoints, call } = await setup();
		await call("edit", { path: "src/b.ts", old_string: "const b = 1", new_string: "const b = 10" });
		await call("write", { path: "other.txt", content: "agent\n" });
		await writeFile(join(project, "src", "b.ts"), "the user's own change\n");
		const refused = await checkpoints.restore({ turns: 1 });
		expect(refused.calls).toBe(0);
		expect(refused.conflicts).toEqual([join(project, "src", "b.ts")]);
		expect(await readFile(join(project, "src", "b.ts"), "utf8")).toBe("the user's own change\n");
		expect(await readFile(join(project, "other.txt"), "utf8")).toBe("agent\n");
		const forced = await checkpoints.restore({ turns: 1, force: true });
		expect(forced.calls).toBe(2);
		expect(await readFile(join(project, "src", "b.ts"), "utf8")).toBe("export const b = 1;\nexport const c = 2;\n");
		await expect(lstat(join(project, "other.txt"))).rejects.toThrow();
	});

	it("stores content once however many checkpoints hold it, outside the project", async () => {
		const { project, checkpoints, call } = await setup();
		for (let index = 0; index < 5; index++) {
			await call("write", { path: "same.txt", content: "A\n" });
			await call("write", { path: "same.txt", content: "B\n" });
		}
		const blobs = await readdir(join(checkpoints.store.dir, "blobs"));
		expect(blobs.length).toBe(2);
		expect(checkpoints.store.dir.startsWith(join(dir(), "state"))).toBe(true);
		expect((await readdir(project)).some((name) => name.includes("checkpoint"))).toBe(false);
	});
});
