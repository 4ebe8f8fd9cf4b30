import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { type SshdFixture, startSshdOrSkip, until } from "./sshd-fixture.js";

const run = promisify(execFile);
let sshd: SshdFixture | undefined;
beforeAll(async () => {
	({ sshd } = await startSshdOrSkip());
}, 30_000);
afterAll(async () => {
	await sshd?.stop();
});

/** Runs `toolbelt tool NAME ARGS --workspace URL --ssh-option …` from an unrelated local folder. */
async function tool(fixture: SshdFixture, folder: string, name: string, args: Record<string, unknown>) {
	const options = fixture.sshOptions.flatMap((option) => ["--ssh-option", option]);
	const argv = [
		ensureBuiltCli(),
		"tool",
		name,
		JSON.stringify(args),
		"--workspace",
		`${fixture.urlPrefix}${folder}`,
		...options,
	];
	const result = await run(process.execPath, argv, { cwd: "/", env: cleanEnv(), timeout: 30_000 }).catch(
		(error: { stdout: string; stderr: string; code: number }) => error,
	);
	return { output: `${result.stdout}${result.stderr}`, code: "code" in result ? result.code : 0 };
}

describe("toolbelt tool --workspace ssh://…", () => {
	const dir = useTempDir();

	it("read, write, bash and grep act on the remote folder", async (context) => {
		if (!sshd) return context.skip();
		writeFileSync(join(dir(), "hello.txt"), "hello from the remote\n");
		expect((await tool(sshd, dir(), "read", { path: "hello.txt" })).output).toContain("hello from the remote");
		const written = await tool(sshd, dir(), "write", { path: "new.txt", content: "made remotely\n" });
		expect(written.code, written.output).toBe(0);
		expect(readFileSync(join(dir(), "new.txt"), "utf8")).toBe("made remotely\n");
		expect((await tool(sshd, dir(), "bash", { command: "pwd" })).output).toContain(dir());
		expect((await tool(sshd, dir(), "grep", { pattern: "remotely" })).output).toContain("new.txt:1");
	}, 60_000);

	it("a toolbelt ended by SIGTERM mid-call leaves no ssh connection behind", async (context) => {
		if (!sshd) return context.skip();
		// The connection's master runs with ControlPersist, on its own: only toolbelt's clean-up ends
		// it. Node runs no exit handler when a signal ends the process, so that clean-up must also run
		// on the signal. The CLI's temp folder is this test's, so its control folder can be found.
		const temp = join(dir(), "tmp");
		mkdirSync(temp);
		const started = join(dir(), "started");
		const options = sshd.sshOptions.flatMap((option) => ["--ssh-option", option]);
		const command = `touch ${started}; sleep 30`;
		const argv = [
			ensureBuiltCli(),
			"tool",
			"bash",
			JSON.stringify({ command }),
			"--workspace",
			`${sshd.urlPrefix}${dir()}`,
		];
		const cli = spawn(process.execPath, [...argv, ...options], {
			cwd: "/",
			env: cleanEnv({ TMPDIR: temp }),
			stdio: "ignore",
		});
		const exited = new Promise((resolve) => cli.once("exit", (code, signal) => resolve(signal ?? code)));
		expect(await until(() => existsSync(started), 20_000)).toBe(true);
		cli.kill("SIGTERM");
		expect(await exited).toBe("SIGTERM");
		// Nothing of the connection is left: no master (its command line names its control path), no control folder.
		const masters = () => {
			const pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
			return pids.filter((pid) => {
				try {
					return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(temp);
				} catch {
					return false;
				}
			});
		};
		expect(await until(() => masters().length === 0, 5_000), `left running: ${masters().join(", ")}`).toBe(true);
		expect(readdirSync(temp).filter((name) => name.startsWith("toolbelt-ssh-"))).toEqual([]);
	}, 60_000);

	it("a malformed URL is a usage error naming the forms", async () => {
		const result = await run(process.execPath, [ensureBuiltCli(), "tool", "ls", "{}", "--workspace", "ftp://x/y"], {
			env: cleanEnv(),
		}).catch((error: { stderr: string; code: number }) => error);
		expect("code" in result ? result.code : 0).toBe(2);
		expect(result.stderr).toMatch(/ssh:\/\/\[user@\]host/);
	});

	it("a client path without --workspace is a usage error", async () => {
		const argv = [ensureBuiltCli(), "tool", "ls", "{}", "--docker-path", "/usr/bin/docker"];
		const result = await run(process.execPath, argv, { env: cleanEnv() }).catch(
			(error: { stderr: string; code: number }) => error,
		);
		expect("code" in result ? result.code : 0).toBe(2);
		expect(result.stderr).toContain("--docker-path applies only with --workspace");
	});
});
