import { execFile, spawn } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";

const run = promisify(execFile);
const dir = useTempDir();

async function cli(cwd: string, env: Record<string, string>, ...args: string[]) {
	return run(process.execPath, [ensureBuiltCli(), ...args], { cwd, env: cleanEnv(env), timeout: 20_000 })
		.then(({ stdout, stderr }) => ({ stdout, stderr, code: 0 }))
		.catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
			stdout: error.stdout ?? "",
			stderr: error.stderr ?? "",
			code: error.code ?? 1,
		}));
}

/** Starts `toolbelt mcp` as a client does, sends `messages`, and resolves to the answers to those with an id. */
async function mcpSession(
	cwd: string,
	env: Record<string, string>,
	messages: Record<string, unknown>[],
	flags: string[] = [],
) {
	const child = spawn(process.execPath, [ensureBuiltCli(), "mcp", ...flags], {
		cwd,
		env: cleanEnv(env),
		stdio: ["pipe", "pipe", "pipe"],
	});
	const expected = messages.filter((message) => "id" in message).length;
	const answers: Record<string, unknown>[] = [];
	let buffered = "";
	const done = new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`toolbelt mcp answered ${answers.length} of ${expected}`)), 20_000);
		child.stdout.on("data", (chunk: Buffer) => {
			buffered += chunk.toString("utf8");
			for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
				answers.push(JSON.parse(buffered.slice(0, end)));
				buffered = buffered.slice(end + 1);
			}
			if (answers.length >= expected) {
				clearTimeout(timer);
				resolve();
			}
		});
	});
	// One at a time: each call is its own checkpoint turn only once the one before has ended.
	for (const message of messages) {
		const before = answers.length;
		child.stdin.write(`${JSON.stringify(message)}\n`);
		if ("id" in message) await Promise.race([done, waitForAnswer(() => answers.length > before)]);
	}
	await done;
	child.stdin.end();
	await new Promise((resolve) => child.once("exit", resolve));
	return answers;
}

async function waitForAnswer(ready: () => boolean): Promise<void> {
	for (let waited = 0; !ready() && waited < 20_000; waited += 10)
		await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("toolbelt undo / checkpoints", () => {
	it("takes back a change made through toolbelt mcp, whose checkpoints open at its first call", async () => {
		const project = join(dir(), "served");
		await mkdir(project);
		await writeFile(join(project, "a.txt"), "one\n");
		const env = { HOME: join(dir(), "home"), XDG_STATE_HOME: join(dir(), "mcp-state") };
		const edit = (id: number, from: string, to: string) => ({
			jsonrpc: "2.0",
			id,
			method: "tools/call",
			params: { name: "edit", arguments: { path: "a.txt", old_string: from, new_string: to } },
		});
		const answers = await mcpSession(project, env, [
			{
				jsonrpc: "2.0",
				id: 1,
				method: "initialize",
				params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
			},
			{ jsonrpc: "2.0", method: "notifications/initialized" },
			edit(2, "one", "two"),
			edit(3, "two", "three"),
			// A command between: it records nothing and starts no turn of its own.
			{
				jsonrpc: "2.0",
				id: 4,
				method: "tools/call",
				params: { name: "bash", arguments: { command: "cat a.txt" } },
			},
		]);
		expect(answers.map((answer) => (answer.result as { isError?: boolean } | undefined)?.isError ?? false)).toEqual([
			false,
			false,
			false,
			false,
		]);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("three\n");
		const undone = await cli(project, env, "undo");
		expect(undone.stdout).toMatch(/Undid 1 call in 1 turn/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("two\n");
	});

	it("takes a code program's changes made through toolbelt mcp back as one turn, the request's", async () => {
		// Each client request is a turn; the edits a program makes inside one belong to it (they
		// were a turn each: undo took back the program's last edit only).
		const project = join(dir(), "program");
		await mkdir(project);
		await writeFile(join(project, "a.txt"), "one\n");
		await writeFile(join(project, "b.txt"), "bee\n");
		const env = { HOME: join(dir(), "home"), XDG_STATE_HOME: join(dir(), "program-state") };
		const call = (id: number, name: string, args: Record<string, unknown>) => ({
			jsonrpc: "2.0",
			id,
			method: "tools/call",
			params: { name, arguments: args },
		});
		const program = [
			'await tools.edit({ path: "a.txt", old_string: "two", new_string: "three" });',
			'await tools.bash({ command: "cat a.txt" });',
			'await tools.edit({ path: "b.txt", old_string: "bee", new_string: "wasp" });',
			'return "edited";',
		].join("\n");
		const answers = await mcpSession(
			project,
			env,
			[
				{
					jsonrpc: "2.0",
					id: 1,
					method: "initialize",
					params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
				},
				{ jsonrpc: "2.0", method: "notifications/initialized" },
				call(2, "edit", { path: "a.txt", old_string: "one", new_string: "two" }),
				call(3, "code", { code: program }),
			],
			["--tools", "read,edit,bash,code"],
		);
		expect(JSON.stringify(answers[2])).toContain("edited");
		expect(await readFile(join(project, "b.txt"), "utf8")).toBe("wasp\n");
		const undone = await cli(project, env, "undo");
		expect(undone.stdout).toMatch(/Undid 2 calls in 1 turn/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("two\n");
		expect(await readFile(join(project, "b.txt"), "utf8")).toBe("bee\n");
		expect((await cli(project, env, "undo")).stdout).toMatch(/Undid 1 call in 1 turn/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("one\n");
	});

	it("opens no checkpoint store for a one-shot command, which records nothing; a write after it is kept", async () => {
		// Opening the store (state folder made, workspace name hashed) was ~10 ms of `toolbelt tool bash`.
		const project = join(dir(), "command");
		await mkdir(project);
		const env = { HOME: join(dir(), "home"), XDG_STATE_HOME: join(dir(), "command-state") };
		const store = join(dir(), "command-state", "toolbelt", "checkpoints");
		const ran = await cli(project, env, "tool", "bash", JSON.stringify({ command: "echo made > made.txt" }));
		expect(ran.code, ran.stderr).toBe(0);
		expect(await readFile(join(project, "made.txt"), "utf8")).toBe("made\n");
		await expect(stat(store)).rejects.toThrow(/ENOENT/);

		expect((await cli(project, env, "tool", "write", JSON.stringify({ path: "w.txt", content: "w\n" }))).code).toBe(0);
		expect(await stat(store)).toBeTruthy();
		expect((await cli(project, env, "undo")).stdout).toMatch(/Undid 1 call in 1 turn:\n\s+removed w\.txt/);
		await expect(stat(join(project, "w.txt"))).rejects.toThrow();
		expect(await readFile(join(project, "made.txt"), "utf8")).toBe("made\n");
	});

	it("takes back each toolbelt tool run as one turn, stored under XDG_STATE_HOME", async () => {
		const project = join(dir(), "project");
		await mkdir(project);
		await writeFile(join(project, "a.txt"), "one\n");
		const env = { HOME: join(dir(), "home"), XDG_STATE_HOME: join(dir(), "state") };
		expect(
			(await cli(project, env, "tool", "edit", JSON.stringify({ path: "a.txt", old_string: "one", new_string: "two" })))
				.code,
		).toBe(0);
		const patch = "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch";
		expect((await cli(project, env, "tool", "apply_patch", JSON.stringify({ patch }))).code).toBe(0);

		const listed = await cli(project, env, "checkpoints");
		expect(listed.stdout).toMatch(/1\. .*apply_patch.*b\.txt/);
		expect(listed.stdout).toMatch(/2\. .*edit.*a\.txt/);
		expect(await stat(join(dir(), "state", "toolbelt", "checkpoints"))).toBeTruthy();

		const first = await cli(project, env, "undo");
		expect(first.stdout).toMatch(/Undid 1 call in 1 turn:\n\s+removed b\.txt/);
		await expect(stat(join(project, "b.txt"))).rejects.toThrow();
		await writeFile(join(project, "a.txt"), "changed by the user\n");
		const refused = await cli(project, env, "undo");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/a\.txt[\s\S]*--force/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("changed by the user\n");
		expect((await cli(project, env, "undo", "--force")).code).toBe(0);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("one\n");
		expect((await cli(project, env, "undo")).stdout).toMatch(/Nothing to undo/);
	});
});
