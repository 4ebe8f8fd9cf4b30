import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { CliProcesses, ensureBuiltCli } from "./helpers/cli-binary.js";
import { createMemoryIO } from "./helpers/memory-io.js";

const toolCall = (name: string, args: Record<string, unknown>) =>
	openAIStream([
		{ toolCall: { index: 0, id: "call_1", name, arguments: JSON.stringify(args) } },
		{ finish: "tool_calls" },
	]);
const reply = (text: string) => openAIStream([{ text }, { finish: "stop" }]);

function bwrapWorks(): boolean {
	try {
		execFileSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	}
}

describe("the safety flags in --help", () => {
	it("documents the flags, what print mode does, and that tool runs in yolo mode but stays confined", async () => {
		const run = createMemoryIO();
		expect(await main(["run", "--help"], run.io)).toBe(0);
		for (const flag of [
			"--mode <mode>",
			"--allow <rule>",
			"--ask <rule>",
			"--deny <rule>",
			"--sandbox",
			"--no-confine",
		]) {
			expect(run.stdout()).toContain(flag);
		}
		expect(run.stdout()).toContain("--allow-write-without-read");
		expect(run.stdout()).toContain("Print mode cannot ask");
		const tool = createMemoryIO();
		expect(await main(["tool", "--help"], tool.io)).toBe(0);
		expect(tool.stdout()).toContain("in yolo mode unless --mode says");
		expect(tool.stdout()).not.toContain("--ask <rule>");
		const interactive = createMemoryIO();
		expect(await main(["--help"], interactive.io)).toBe(0);
		expect(interactive.stdout()).toContain("--mode <mode>");
	});
});

describe("toolbelt run with the safety layer", () => {
	const tempDir = useTempDir();
	const server = useSseServer();
	const run = async (flags: string[], prompt: string) => {
		const memory = createMemoryIO({ cwd: tempDir(), env: { PATH: process.env.PATH } });
		const code = await main(
			["run", "--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "m", ...flags, prompt],
			memory.io,
		);
		return { code, stdout: memory.stdout(), stderr: memory.stderr() };
	};
	const toolMessage = (requestIndex: number) => server.requests[requestIndex]?.body.messages.at(-1);

	it("refuses a write in the default mode: no file, the model gets the reason, stderr names the flags", async () => {
		server.push({ events: toolCall("write", { path: "new.txt", content: "x\n" }) }, { events: reply("Could not.") });
		const result = await run([], "create new.txt");
		expect(result.code).toBe(0);
		expect(existsSync(join(tempDir(), "new.txt"))).toBe(false);
		expect(toolMessage(1)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
		expect(toolMessage(1).content).toMatch(/Permission required: .*cannot ask the user/);
		expect(toolMessage(1).content).toContain('"write(/new.txt)"');
		expect(result.stderr).toMatch(/● write new\.txt {2}✗ needs approval/);
		expect(result.stderr).toContain("toolbelt: 1 call was not run: it needs approval, and toolbelt run cannot ask.");
		expect(result.stderr).toContain("Allow exactly these: --allow 'write(/new.txt)'");
		expect(result.stderr).toContain("--mode accept-edits");
		expect(result.stdout).toBe("Could not.\n");
	});

	it("lets the edit through with --mode accept-edits, but still not a command", async () => {
		server.push(
			{ events: toolCall("write", { path: "new.txt", content: "made\n" }) },
			{ events: toolCall("bash", { command: "echo hi > ran.txt" }) },
			{ events: reply("Done.") },
		);
		const result = await run(["--mode", "accept-edits"], "create new.txt");
		expect(result.code).toBe(0);
		expect(await readFile(join(tempDir(), "new.txt"), "utf8")).toBe("made\n");
		expect(existsSync(join(tempDir(), "ran.txt"))).toBe(false);
		expect(result.stderr).toContain("--allow 'bash(echo hi > ran.txt)'");
		expect(result.stderr).toContain("--mode yolo");
	});

	it("runs an allowed command; refuses to overwrite an unread file unless --allow-write-without-read", async () => {
		await writeFile(join(tempDir(), "old.txt"), "precious\n");
		server.push(
			{ events: toolCall("bash", { command: "echo hi > ran.txt" }) },
			{ events: toolCall("write", { path: "old.txt", content: "clobbered\n" }) },
			{ events: reply("Done.") },
		);
		const first = await run(["--allow", "bash(echo hi > ran.txt)", "--allow", "write"], "go");
		expect(first.code).toBe(0);
		expect(await readFile(join(tempDir(), "ran.txt"), "utf8")).toBe("hi\n");
		expect(await readFile(join(tempDir(), "old.txt"), "utf8")).toBe("precious\n");
		expect(toolMessage(2).content).toContain("you have not read it");

		server.push({ events: toolCall("write", { path: "old.txt", content: "replaced\n" }) }, { events: reply("Ok.") });
		const second = await run(["--mode", "accept-edits", "--allow-write-without-read"], "go");
		expect(second.code).toBe(0);
		expect(await readFile(join(tempDir(), "old.txt"), "utf8")).toBe("replaced\n");
	});

	it("stops with exit 2 naming the file for a malformed settings file, a bad rule or a bad mode", async () => {
		await mkdir(join(tempDir(), ".toolbelt"));
		await writeFile(join(tempDir(), ".toolbelt", "settings.json"), '{ "permissions": { "allow": "bash" } }');
		const malformed = await run([], "hi");
		expect(malformed.code).toBe(2);
		expect(malformed.stderr).toContain(`Invalid settings file ${join(tempDir(), ".toolbelt", "settings.json")}`);
		expect(malformed.stderr).toContain("permissions.allow");
		expect(server.requests).toHaveLength(0);

		await writeFile(join(tempDir(), ".toolbelt", "settings.json"), "{}");
		const rule = await run(["--deny", "bash("], "hi");
		expect(rule.code).toBe(2);
		expect(rule.stderr).toContain('Invalid permission rule "bash("');
		const mode = await run(["--mode", "careful"], "hi");
		expect(mode.code).toBe(2);
		expect(mode.stderr).toContain("Unknown mode 'careful'. Use one of: default, accept-edits, read-only, yolo.");
	});
});

describe("toolbelt tool with the safety layer", () => {
	const tempDir = useTempDir();
	const tool = async (argv: string[], env: Record<string, string> = {}) => {
		const memory = createMemoryIO({ cwd: tempDir(), env: { PATH: process.env.PATH, ...env } });
		const code = await main(["tool", ...argv], memory.io);
		return { code, stdout: memory.stdout(), stderr: memory.stderr() };
	};

	it("is confined to the working directory unless --no-confine", async () => {
		const outside = await tool(["read", '{"path": "/etc/passwd"}']);
		expect(outside.code).toBe(1);
		expect(outside.stderr).toContain("Access denied: read may not touch /etc/passwd");
		expect(outside.stdout).toBe("");
		const parent = await tool(["ls", '{"path": ".."}']);
		expect(parent.code).toBe(1);

		const allowed = await tool(["read", '{"path": "/etc/passwd"}', "--no-confine"]);
		expect(allowed.code).toBe(0);
		expect(allowed.stdout).toContain("root");
	});

	it("runs writes and commands without asking, but protected paths need --allow and deny rules hold", async () => {
		await writeFile(join(tempDir(), "old.txt"), "old\n");
		const write = await tool(["write", '{"path": "old.txt", "content": "new\\n"}']);
		expect(write.code).toBe(0);
		expect(await readFile(join(tempDir(), "old.txt"), "utf8")).toBe("new\n");

		const env = await tool(["write", '{"path": ".env", "content": "TOKEN=1\\n"}']);
		expect(env.code).toBe(1);
		expect(existsSync(join(tempDir(), ".env"))).toBe(false);
		expect(env.stderr).toContain("Allow exactly these: --allow 'write(/.env)'");
		const envAllowed = await tool(["write", '{"path": ".env", "content": "TOKEN=1\\n"}', "--allow", "write(/.env)"]);
		expect(envAllowed.code).toBe(0);

		// A deny rule in the user's settings (a temp HOME) applies to a direct call too.
		const home = join(tempDir(), "home");
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		await writeFile(
			join(home, ".toolbelt", "settings.json"),
			JSON.stringify({ permissions: { deny: ["bash(touch:*)"] } }),
		);
		const denied = await tool(["bash", '{"command": "touch made.txt"}'], { HOME: home });
		expect(denied.code).toBe(1);
		expect(denied.stderr).toMatch(/Permission denied: .*"bash\(touch:\*\)"/);
		expect(existsSync(join(tempDir(), "made.txt"))).toBe(false);
		const readOnly = await tool(["bash", '{"command": "echo hi"}', "--mode", "read-only"]);
		expect(readOnly.code).toBe(1);
		expect(readOnly.stderr).toContain("read-only mode");
	});

	it("exits 2 naming a malformed user settings file", async () => {
		const home = join(tempDir(), "home");
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		await writeFile(join(home, ".toolbelt", "settings.json"), "{ not json");
		const result = await tool(["ls", "{}"], { HOME: home });
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`Invalid settings file ${join(home, ".toolbelt", "settings.json")}`);
	});

	it.skipIf(!bwrapWorks())("runs bash in the sandbox with --sandbox: writes outside the workspace fail", async () => {
		await mkdir(join(tempDir(), "workspace"));
		const outside = join(tempDir(), "outside.txt");
		const command = `echo in > inside.txt; echo out > ${outside}`;
		const result = await tool(["--cwd", "workspace", "bash", JSON.stringify({ command }), "--sandbox"]);
		expect(result.stderr).toBe("");
		expect(await readFile(join(tempDir(), "workspace", "inside.txt"), "utf8")).toBe("in\n");
		// Outside the workspace the write landed in the sandbox's private /tmp at most, never on disk.
		expect(existsSync(outside)).toBe(false);
		// Without the sandbox the same command does reach it: the shell is not confined.
		expect((await tool(["--cwd", "workspace", "bash", JSON.stringify({ command })])).code).toBe(0);
		expect(existsSync(outside)).toBe(true);
	});
});

describe("the built binary with the safety layer", () => {
	const tempDir = useTempDir();
	const processes = new CliProcesses();
	beforeAll(() => {
		ensureBuiltCli();
	});
	afterEach(() => {
		processes.killAll();
	});

	it("refuses a path outside the working directory, and exits 2 naming a malformed settings file", async () => {
		const outside = await processes.run(["tool", "read", '{"path":"/etc/passwd"}'], { cwd: tempDir() });
		expect(outside.code).toBe(1);
		expect(outside.stdout).toBe("");
		expect(outside.stderr).toContain("outside the workspace");

		await mkdir(join(tempDir(), ".toolbelt"));
		await writeFile(join(tempDir(), ".toolbelt", "settings.json"), '{ "permissions": { "defaultMode": "careless" } }');
		const malformed = await processes.run(["tool", "ls", "{}"], { cwd: tempDir() });
		expect(malformed.code).toBe(2);
		expect(malformed.stderr).toContain(
			`toolbelt: Invalid settings file ${join(tempDir(), ".toolbelt", "settings.json")}`,
		);
		expect(malformed.stderr).toContain("permissions.defaultMode");
		expect(malformed.stderr).not.toMatch(/\n\s+at /);
	});
});
