// Code mode through the built CLI and `toolbelt mcp`: a program's edits are one undo step, and a
// program over a bound is stopped while the server goes on serving.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { connectStdio, processesMatching, type StdioSession, textOf } from "../mcp/helpers.js";
import { eventually } from "../tools/shell/survivors.js";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";

vi.setConfig({ testTimeout: 120_000 });
const dir = useTempDir();
const cli = new CliProcesses();
const sessions: StdioSession[] = [];
afterEach(async () => {
	cli.killAll();
	await Promise.all(sessions.splice(0).map((session) => session.client.close()));
});

describe("code mode in the CLI", () => {
	it("takes back every edit of one program with one toolbelt undo", async () => {
		ensureBuiltCli();
		const project = join(dir(), "project");
		await mkdir(project);
		await writeFile(join(project, "a.txt"), "alpha\n");
		await writeFile(join(project, "b.txt"), "beta\n");
		const env = cleanEnv({ HOME: join(dir(), "home"), XDG_STATE_HOME: join(dir(), "state") });
		const program = `for (const name of ["a.txt", "b.txt"]) {
			const { text } = await tools.read({ path: name });
			await tools.edit({ path: name, old_string: text.includes("alpha") ? "alpha" : "beta", new_string: "changed" });
		}
		await tools.write({ path: "c.txt", content: "new\\n" });
		return "edited";`;
		const ran = await cli.run(["tool", "code", JSON.stringify({ code: program })], { cwd: project, env });
		expect(ran.code, ran.stderr).toBe(0);
		expect(ran.stdout).toContain("edited");
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("changed\n");
		const undone = await cli.run(["undo"], { cwd: project, env });
		expect(undone.code, undone.stderr).toBe(0);
		expect(undone.stdout).toMatch(/Undid 3 calls in 1 turn/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("alpha\n");
		expect(await readFile(join(project, "b.txt"), "utf8")).toBe("beta\n");
		await expect(readFile(join(project, "c.txt"))).rejects.toThrow();
	});

	it("takes a program's bounds from the settings file, and refuses a bound out of range", async () => {
		ensureBuiltCli();
		const project = join(dir(), "bounded");
		const home = join(dir(), "bounded-home");
		await mkdir(project);
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		const settings = join(home, ".toolbelt", "settings.json");
		await writeFile(settings, JSON.stringify({ code: { maxToolCalls: 3 } }));
		const env = cleanEnv({ HOME: home, XDG_STATE_HOME: join(dir(), "bounded-state") });
		const program = "for (let index = 0; index < 5; index++) await tools.ls({}); return 'done';";
		const stopped = await cli.run(["tool", "code", JSON.stringify({ code: program })], { cwd: project, env });
		expect(stopped.code).not.toBe(0);
		expect(stopped.stdout + stopped.stderr).toMatch(/3 tool calls \(the maxToolCalls bound/);
		const underDefault = "for (let index = 0; index < 3; index++) await tools.ls({}); return 'three';";
		const ran = await cli.run(["tool", "code", JSON.stringify({ code: underDefault })], { cwd: project, env });
		expect(ran.code, ran.stderr).toBe(0);
		expect(ran.stdout).toContain("three");

		await writeFile(settings, JSON.stringify({ code: { memoryBytes: 2 ** 40 } }));
		const refused = await cli.run(["tool", "code", JSON.stringify({ code: "return 1;" })], { cwd: project, env });
		expect(refused.code).not.toBe(0);
		expect(refused.stderr).toMatch(/code\.memoryBytes: must be <= 1073741824/);
	});

	it("toolbelt mcp serves code only when named, stops programs over a bound and goes on serving", async () => {
		const project = join(dir(), "served");
		await mkdir(project);
		await writeFile(join(project, "f.txt"), "x\n");
		const plain = await connectStdio(["--cwd", project]);
		sessions.push(plain);
		expect((await plain.client.listTools()).tools.map((tool) => tool.name)).not.toContain("code");

		// A CPU bound of 1 s from the user's settings, not the default 10 s: the endless loop below
		// burns all of it, and it is the same bound that stops it either way.
		const home = join(dir(), "served-home");
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify({ code: { cpuMs: 1000 } }));
		const session = await connectStdio(["--cwd", project, "--tools", "ls,read,code"], { HOME: home });
		sessions.push(session);
		const call = (code: string) => session.client.callTool({ name: "code", arguments: { code } });
		const memory = await call("const kept = []; while (true) kept.push(new Array(100000).fill(kept.length));");
		expect(memory.isError).toBe(true);
		expect(textOf(memory)).toMatch(/memoryBytes bound/);
		const calls = await call("for (let index = 0; index < 10000; index++) await tools.ls({}); return 'done';");
		expect(calls.isError).toBe(true);
		expect(textOf(calls)).toMatch(/maxToolCalls bound/);
		const loop = await call("while (true) {}");
		expect(loop.isError).toBe(true);
		expect(textOf(loop)).toMatch(/cpuMs bound/);
		expect(textOf(loop)).toMatch(/its 1 s of interpreter time/);
		const after = await call("return (await tools.read({ path: 'f.txt' })).text;");
		expect(after.isError).toBeFalsy();
		expect(textOf(after)).toContain("x");
		expect((await session.client.callTool({ name: "ls", arguments: {} })).isError).toBeFalsy();
	});

	it("a client's cancel of a code call over MCP ends the program and its inner command's process tree", async () => {
		const project = join(dir(), "cancelled");
		await mkdir(project);
		const session = await connectStdio(["--cwd", project, "--tools", "bash,code"]);
		sessions.push(session);
		// A duration no other process has, to find the tree by its command line.
		const sleeper = `sleep 900.${process.pid}${Date.now() % 100_000}`;
		const controller = new AbortController();
		const running = session.client
			.callTool(
				{
					name: "code",
					arguments: { code: `await tools.bash({ command: "${sleeper} & ${sleeper}; wait" }); return "ended";` },
				},
				undefined,
				{ signal: controller.signal },
			)
			.then(
				() => "answered",
				() => "cancelled",
			);
		expect(await eventually(() => processesMatching(sleeper).length >= 2, 30_000)).toBe(true);
		controller.abort();
		expect(await running).toBe("cancelled");
		expect(await eventually(() => processesMatching(sleeper).length === 0, 30_000)).toBe(true);
		const after = await session.client.callTool({ name: "code", arguments: { code: "return 40 + 2;" } });
		expect(textOf(after)).toContain("42");
	});
});
