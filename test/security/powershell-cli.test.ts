import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { writeFakePwsh } from "../tools/shell/fake-pwsh.js";

/**
 * The PowerShell policy through the built CLI as a user starts it, as root and as an unprivileged
 * user (issue 25). PowerShell is not installed: a stand-in `pwsh` logs each script it is given,
 * so the effect checked is whether the shell started at all. Each denied form started it on the
 * hand-written splitter (checked on the base commit).
 */
describe.each(testUsers())("the PowerShell policy holds (built CLI, as %s)", (user: TestUser) => {
	const tempDir = useTempDir();
	const processes = new CliProcesses();
	beforeAll(() => {
		ensureBuiltCli();
	});
	afterEach(() => processes.killAll());

	async function project() {
		const root = tempDir();
		const dir = join(root, "project");
		const bin = join(root, "bin");
		await mkdir(dir, { recursive: true });
		await mkdir(bin);
		await mkdir(join(root, "home"));
		await writeFakePwsh(bin);
		await writeFile(join(dir, "victim"), "keep me\n");
		const log = join(root, "pwsh.log");
		const env = cleanEnv({ HOME: join(root, "home"), PATH: `${bin}:${process.env.PATH ?? ""}`, FAKE_PWSH_LOG: log });
		await handOver(root, user);
		const run = (command: string, flags: string[]) =>
			processes.run(["tool", "powershell", JSON.stringify({ command }), ...flags], { cwd: dir, env, user });
		return { run, started: () => existsSync(log) && readFileSync(log, "utf8").length > 0 };
	}

	it.each([
		["the alias del", "del victim"],
		["Set-Alias, then the alias", "Set-Alias gone Remove-Item; gone victim"],
		["an abbreviated -Command", "pwsh -Comm 'Remove-Item victim'"],
		["cmd /c", "cmd /c del victim"],
	])(
		"deny powershell(Remove-Item:*) keeps the shell from starting for %s",
		async (_name, command) => {
			const setup = await project();
			const result = await setup.run(command, ["--deny", "powershell(Remove-Item:*)"]);
			expect(setup.started(), `${command}\n${result.stdout}${result.stderr}`).toBe(false);
			// Refused by the rule, not by a start-up failure: the same call without it starts the shell.
			await setup.run(command, []);
			expect(setup.started()).toBe(true);
		},
		60_000,
	);

	it("positive control: a plain pipeline runs under the deny rule", async () => {
		const setup = await project();
		const result = await setup.run("Get-ChildItem | Select-Object Name", ["--deny", "powershell(Remove-Item:*)"]);
		expect(setup.started(), result.stdout + result.stderr).toBe(true);
	}, 60_000);
});
