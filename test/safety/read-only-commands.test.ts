import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { createSafetyLayer, type SafetyLayerOptions } from "../../src/safety/index.js";
import type { PermissionAnswer, PermissionRequest } from "../../src/safety/permissions/permissions.js";
import { createBashTool } from "../../src/tools/bash.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "./run-calls.js";

const tempDir = useTempDir();

/** A default-mode session whose prompts are recorded and declined. */
async function session(options: Partial<SafetyLayerOptions> = {}) {
	const project = join(tempDir(), "project");
	const outside = join(tempDir(), "outside");
	await mkdir(join(project, "src"), { recursive: true });
	await mkdir(outside, { recursive: true });
	await writeFile(join(project, "src", "a.txt"), "alpha\nbeta\n");
	await writeFile(join(project, ".env"), "TOKEN=hidden\n");
	await writeFile(join(outside, "secret.txt"), "outside-secret\n");
	const prompts: PermissionRequest[] = [];
	const ask = async (request: PermissionRequest): Promise<PermissionAnswer> => {
		prompts.push(request);
		return "no";
	};
	const safety = await createSafetyLayer({ cwd: project, homeDir: join(tempDir(), "home"), ask, ...options });
	const tools = [createBashTool(project)];
	const run = (command: string) => runCall(tools, safety.hooks, "bash", { command });
	return { project, outside, prompts, run };
}

describe("default mode's read-only commands", () => {
	it("runs listed commands with harmless options inside the workspace without asking", async () => {
		const { prompts, run } = await session();
		for (const command of [
			"ls -la src",
			"cat src/a.txt",
			"grep -n beta src/a.txt",
			"head -n 1 src/a.txt | wc -l",
			"wc -l src/a.txt 2>/dev/null",
			"pwd && echo done",
		]) {
			const result = await run(command);
			expect(result.isError, command).toBe(false);
		}
		expect(prompts).toHaveLength(0);
	});

	it("asks for everything else: writes, unknown options, runners, expansions, outside paths, read rules", async () => {
		const { project, outside, prompts, run } = await session({ rules: { deny: [], ask: ["read(.env)"] } });
		const asked = [
			"sort -o sorted.txt src/a.txt", // a writing option
			"rg --pre ./x alpha src", // an option that runs a program
			"tail -f src/a.txt", // an option not on the list
			"cat src/a.txt > copy.txt", // a redirection that writes
			"cat $HOME/.profile", // an expansion
			"cat src/*.txt", // a glob
			`cat ${join(outside, "secret.txt")}`, // outside the workspace
			"cat ../outside/secret.txt",
			"cat ~/.ssh/id_ed25519", // home
			"cat a=~/.ssh/id_ed25519", // bash expands a tilde after an assignment-shaped word's =
			"cat .env", // an ask rule for reading it
			"sudo cat src/a.txt", // a wrapper
			"xargs cat < src/a.txt", // a runner
			"cat $(echo src/a.txt)", // command substitution
			"git status", // git runs what its config names
			"uniq src/a.txt out.txt", // uniq's second operand is written
			"cd src && cat a.txt", // a directory change
			"FOO=1 cat src/a.txt", // an assignment
			"/bin/cat src/a.txt", // a program by path
		];
		for (const command of asked) await run(command);
		expect(prompts.map((prompt) => prompt.summary)).toEqual(asked.map((command) => `bash: ${command}`));
		expect(existsSync(join(project, "sorted.txt"))).toBe(false);
		expect(existsSync(join(project, "copy.txt"))).toBe(false);
		expect(existsSync(join(project, "out.txt"))).toBe(false);
	});

	it("a listing or recursive search asks when a read rule could match below it, and never follows links out", async () => {
		const { project, outside, prompts, run } = await session({ rules: { deny: ["read(.env)"], ask: [] } });
		const { symlink } = await import("node:fs/promises");
		await symlink(outside, join(project, "link"));
		const asked = [
			"grep -r TOKEN .", // .env is below .
			"grep -rn TOKEN", // a recursive search of the working directory
			"rg --hidden --no-ignore TOKEN",
			"ls -a", // the listing names .env
			"du -a",
			"grep -f .env src/a.txt", // -f reads the denied file's lines as patterns
			"grep -f.env src/a.txt", // attached
			"diff -N .env src/a.txt", // diff compares two folders' files, following their links
		];
		for (const command of asked) {
			const result = await run(command);
			expect(textOf(result), command).not.toMatch(/=hidden/);
		}
		expect(prompts.map((prompt) => prompt.summary)).toEqual(asked.map((command) => `bash: ${command}`));
		// The same project, link and all, without rules.
		const plain = await session();
		// Without rules, following a link out of the workspace on the way down still asks.
		for (const command of ["grep -R outside-secret .", "ls -RL", "du -aL", "rg -L outside-secret"]) {
			const result = await plain.run(command);
			expect(textOf(result), command).not.toMatch(/secret\.txt/);
		}
		expect(plain.prompts).toHaveLength(4);
	});

	it("a recursive search runs without asking where no read rule reaches", async () => {
		const { prompts, run } = await session({ rules: { deny: ["read(//nowhere/**)", "read(/secrets/**)"], ask: [] } });
		for (const command of ["grep -rn beta src", "ls -la src", "du -s src", "grep -e beta -r src"]) {
			const result = await run(command);
			expect(result.isError, `${command}: ${textOf(result)}`).toBe(false);
		}
		expect(prompts).toHaveLength(0);
		// A search of the working directory reaches /secrets.
		await run("grep -r beta");
		expect(prompts).toHaveLength(1);
	});

	it("a symlink out of the workspace is judged where it leads", async () => {
		const { project, outside, prompts, run } = await session();
		const { symlink } = await import("node:fs/promises");
		await symlink(outside, join(project, "link"));
		const result = await run("cat link/secret.txt");
		expect(result.isError).toBe(true);
		expect(prompts).toHaveLength(1);
	});

	it("can be turned off, and never applies outside default mode's asking", async () => {
		const off = await session({ autoAllowReadOnlyCommands: false });
		await off.run("ls");
		expect(off.prompts).toHaveLength(1);
		const readOnlyMode = await session({ mode: "read-only" });
		expect((await readOnlyMode.run("ls")).isError).toBe(true);
	});
});

describe("permissions.autoAllowReadOnlyCommands", () => {
	async function writeSettings(folder: string, permissions: Record<string, unknown>) {
		await mkdir(join(folder, ".toolbelt"), { recursive: true });
		await writeFile(join(folder, ".toolbelt", "settings.json"), JSON.stringify({ permissions }));
	}

	it("false in the user file turns the list off; the library option wins over it", async () => {
		await writeSettings(join(tempDir(), "home"), { autoAllowReadOnlyCommands: false });
		const off = await session();
		expect((await off.run("ls")).isError).toBe(true);
		expect(off.prompts).toHaveLength(1);
		const on = await session({ autoAllowReadOnlyCommands: true });
		expect((await on.run("ls")).isError).toBe(false);
		expect(on.prompts).toHaveLength(0);
	});

	it("false in an untrusted project file applies; true there does not undo the user's false", async () => {
		await writeSettings(join(tempDir(), "project"), { autoAllowReadOnlyCommands: false });
		const off = await session();
		await off.run("ls");
		expect(off.prompts).toHaveLength(1);
		await writeSettings(join(tempDir(), "home"), { autoAllowReadOnlyCommands: false });
		await writeSettings(join(tempDir(), "project"), { autoAllowReadOnlyCommands: true });
		const untrusted = await session();
		await untrusted.run("ls");
		expect(untrusted.prompts).toHaveLength(1);
		const trusted = await session({ trustProject: true });
		await trusted.run("ls");
		expect(trusted.prompts).toHaveLength(0);
	});

	it("a settings file with a non-boolean value is refused", async () => {
		await writeSettings(join(tempDir(), "home"), { autoAllowReadOnlyCommands: "no" });
		await expect(session()).rejects.toThrow(/autoAllowReadOnlyCommands/);
	});

	it("--no-read-only-commands turns it off for one run of the CLI", async () => {
		const project = join(tempDir(), "cli-project");
		await mkdir(project, { recursive: true });
		const env = { HOME: join(tempDir(), "cli-home") };
		const listed = createMemoryIO({ cwd: project, env });
		expect(await main(["tool", "bash", '{"command":"ls"}', "--mode", "default"], listed.io)).toBe(0);
		const refused = createMemoryIO({ cwd: project, env });
		const args = ["tool", "bash", '{"command":"ls"}', "--mode", "default", "--no-read-only-commands"];
		expect(await main(args, refused.io)).toBe(1);
	});
});
