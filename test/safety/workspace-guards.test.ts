import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { loadMcpTools, type McpTools } from "../../src/mcp/client/client.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import {
	confineFileOperations,
	createEditTool,
	createLocalWorkspace,
	createLsTool,
	createReadTool,
	createWriteTool,
	type FileOperations,
	localFileOperations,
} from "../../src/tools/index.js";
import { MemoryFiles } from "../../src/workspace/index.js";
import { noSettings } from "../helpers/no-settings.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "./run-calls.js";

// The checks of issue 13: guards decide on a call's declared access (not its tool's name), the
// path is resolved once, and every guard judges the workspace's own disk.

const notesServer = fileURLToPath(new URL("./fixtures/notes-server.mjs", import.meta.url));

const open: McpTools[] = [];
afterEach(async () => {
	await Promise.all(open.splice(0).map((loaded) => loaded.close()));
});

describe("guards decide on access, not on names", () => {
	const dir = useTempDir();

	it("a tool named write from a trusted MCP server with a read-only annotation is treated as a read", async () => {
		const project = join(dir(), "proj");
		await mkdir(project);
		// The user's own config vouches for the server: only then do its annotations count.
		const servers = { notes: { command: process.execPath, args: [notesServer], trusted: true } };
		await writeFile(join(dir(), "mcp.json"), JSON.stringify({ mcpServers: servers }));
		const loaded = await loadMcpTools(join(dir(), "mcp.json"));
		open.push(loaded);
		const fromServer = loaded.tools.find((tool) => tool.name === "notes__write") as AnyAgentTool;
		const named: AnyAgentTool = { ...fromServer, name: "write" };
		const safety = await createSafetyLayer({ cwd: project, homeDir: dir(), mode: "read-only" });
		// Read-only mode lets it run, and its `path` (the server's own world) is no file of the workspace.
		const result = await runCall([named], safety.hooks, "write", { path: "../../etc/passwd" });
		expect(textOf(result)).toBe("note ../../etc/passwd looked up");
		expect(result.isError).toBe(false);
		// The built-in write under the same name is refused in read-only mode.
		const builtIn = await runCall([createWriteTool(project)], safety.hooks, "write", { path: "a.txt", content: "x" });
		expect(builtIn.isError).toBe(true);
		expect(textOf(builtIn)).toMatch(/read-only mode/);
	});

	it("a renamed built-in keeps its protection: confinement, protected paths, rules of its access, modes", async () => {
		const project = join(dir(), "proj");
		await mkdir(join(project, "src"), { recursive: true });
		const saveFile: AnyAgentTool = { ...createWriteTool(project), name: "save_file" };
		const yolo = await createSafetyLayer({
			cwd: project,
			homeDir: dir(),
			mode: "yolo",
			rules: { deny: ["edit(src/**)"] },
		});
		const outside = await runCall([saveFile], yolo.hooks, "save_file", { path: "../outside.txt", content: "x" });
		expect(textOf(outside)).toMatch(/outside the workspace/);
		expect(existsSync(join(dir(), "outside.txt"))).toBe(false);
		const env = await runCall([saveFile], yolo.hooks, "save_file", { path: ".env", content: "x" });
		expect(textOf(env)).toMatch(/protected path/);
		const denied = await runCall([saveFile], yolo.hooks, "save_file", { path: "src/a.ts", content: "x" });
		expect(textOf(denied)).toMatch(/edit\(src\/\*\*\)/);
		const readOnly = await createSafetyLayer({ cwd: project, homeDir: dir(), mode: "read-only" });
		const refused = await runCall([saveFile], readOnly.hooks, "save_file", { path: "b.txt", content: "x" });
		expect(textOf(refused)).toMatch(/read-only mode/);
		expect(existsSync(join(project, "b.txt"))).toBe(false);
	});
});

/** The local disk, counting real-path look-ups; confined operations check descriptors, as the local disk's own do. */
function countingLocalFiles(): { files: FileOperations; realpaths: () => number; reset: () => void } {
	let count = 0;
	const counted = (operations: FileOperations): FileOperations => ({
		...operations,
		realpath: (path) => {
			count++;
			return operations.realpath(path);
		},
	});
	const files: FileOperations = {
		...counted(localFileOperations),
		confine: (roots) => counted(confineFileOperations(localFileOperations, roots)),
	};
	return {
		files,
		realpaths: () => count,
		reset: () => {
			count = 0;
		},
	};
}

describe("one resolution per call", () => {
	const dir = useTempDir();

	it("one safe write with the full safety layer resolves real paths at most twice", async () => {
		const counting = countingLocalFiles();
		const workspace = createLocalWorkspace(dir(), { files: counting.files });
		const tools = [createReadTool(dir(), { workspace }), createWriteTool(dir(), { workspace })];
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), mode: "yolo", workspace });
		await writeFile(join(dir(), "a.txt"), "old\n");
		expect((await runCall(tools, safety.hooks, "read", { path: "a.txt" })).isError).toBe(false);
		counting.reset();
		const replaced = await runCall(tools, safety.hooks, "write", { path: "a.txt", content: "new\n" });
		expect(replaced.isError).toBe(false);
		expect(counting.realpaths()).toBeLessThanOrEqual(2);
		counting.reset();
		const created = await runCall(tools, safety.hooks, "write", { path: "sub/new.txt", content: "n\n" });
		expect(created.isError).toBe(false);
		expect(counting.realpaths()).toBeLessThanOrEqual(2);
		expect(await readFile(join(dir(), "a.txt"), "utf8")).toBe("new\n");
	});
});

describe("every guard judges the workspace's own disk (an in-memory FileOperations)", () => {
	async function setup() {
		const memory = new MemoryFiles();
		memory.put("/mem/ws/notes.txt", "hello\n");
		memory.put("/mem/ws/secret.txt", "top secret\n");
		memory.put("/mem/outside/passwd", "root:x:0:0\n");
		memory.link("/mem/ws/escape", "/mem/outside");
		const workspace = createLocalWorkspace("/mem/ws", { files: memory });
		const tools = [
			createReadTool("/mem/ws", { workspace }),
			createWriteTool("/mem/ws", { workspace }),
			createEditTool("/mem/ws", { workspace }),
			createLsTool("/mem/ws", { workspace }),
		];
		const safety = await createSafetyLayer({
			cwd: "/mem/ws",
			homeDir: "/mem/home",
			mode: "yolo",
			workspace,
			settings: noSettings,
			rules: { deny: ["read(secret.txt)"] },
		});
		return { memory, tools, hooks: safety.hooks };
	}

	it("confinement, stale writes, deny rules, read-deny listing and protected paths hold; the local disk is never touched", async () => {
		const { memory, tools, hooks } = await setup();
		expect(textOf(await runCall(tools, hooks, "read", { path: "/mem/outside/passwd" }))).toMatch(
			/outside the workspace/,
		);
		expect(textOf(await runCall(tools, hooks, "read", { path: "escape/passwd" }))).toMatch(/outside the workspace/);
		expect(textOf(await runCall(tools, hooks, "read", { path: "secret.txt" }))).toMatch(/Permission denied/);
		const unread = await runCall(tools, hooks, "write", { path: "notes.txt", content: "x\n" });
		expect(textOf(unread)).toMatch(/have not read it/);
		expect(textOf(await runCall(tools, hooks, "read", { path: "notes.txt" }))).toContain("hello");
		memory.put("/mem/ws/notes.txt", "changed outside\n");
		expect(textOf(await runCall(tools, hooks, "write", { path: "notes.txt", content: "x\n" }))).toMatch(
			/changed on disk/,
		);
		expect(memory.get("/mem/ws/notes.txt")?.toString("utf8")).toBe("changed outside\n");
		await runCall(tools, hooks, "read", { path: "notes.txt" });
		const written = await runCall(tools, hooks, "write", { path: "notes.txt", content: "mine\n" });
		expect(written.isError, textOf(written)).toBe(false);
		expect(memory.get("/mem/ws/notes.txt")?.toString("utf8")).toBe("mine\n");
		const edited = await runCall(tools, hooks, "edit", { path: "notes.txt", old_string: "mine", new_string: "ours" });
		expect(edited.isError, textOf(edited)).toBe(false);
		expect(memory.get("/mem/ws/notes.txt")?.toString("utf8")).toBe("ours\n");
		expect(textOf(await runCall(tools, hooks, "write", { path: ".env", content: "x" }))).toMatch(/protected path/);
		const listing = textOf(await runCall(tools, hooks, "ls", {}));
		expect(listing).toContain("notes.txt");
		expect(listing).not.toContain("secret.txt");
		expect(listing).toMatch(/1 entry withheld/);
		expect(existsSync("/mem")).toBe(false);
	});
});
