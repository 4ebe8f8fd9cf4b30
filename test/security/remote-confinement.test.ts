import { execFile } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { type SshdFixture, startSshdOrSkip } from "../remote/sshd-fixture.js";

// A red-team test of issue 15: with --workspace ssh://…, the guards judge the remote disk. A
// symlink inside the remote folder that points outside it does not let read or write escape.

const run = promisify(execFile);
let sshd: SshdFixture | undefined;
beforeAll(async () => {
	({ sshd } = await startSshdOrSkip());
}, 30_000);
afterAll(async () => {
	await sshd?.stop();
});

describe("remote confinement", () => {
	const dir = useTempDir();

	it("a symlink out of the remote workspace is refused for read and write", async (context) => {
		if (!sshd) return context.skip();
		const workspace = join(dir(), "ws");
		const outside = join(dir(), "outside");
		await run("mkdir", ["-p", workspace, outside]);
		writeFileSync(join(outside, "secret.txt"), "TOP-SECRET\n");
		symlinkSync(outside, join(workspace, "escape"));
		const options = sshd.sshOptions.flatMap((option) => ["--ssh-option", option]);
		const call = (name: string, args: Record<string, unknown>) =>
			run(
				process.execPath,
				[
					ensureBuiltCli(),
					"tool",
					name,
					JSON.stringify(args),
					"--workspace",
					`${sshd?.urlPrefix}${workspace}`,
					...options,
				],
				{ cwd: "/", env: cleanEnv(), timeout: 30_000 },
			).catch((error: { stdout: string; stderr: string }) => error);
		const read = await call("read", { path: "escape/secret.txt" });
		expect(`${read.stdout}${read.stderr}`).toMatch(/outside the workspace/);
		expect(`${read.stdout}${read.stderr}`).not.toContain("TOP-SECRET");
		const write = await call("write", { path: "escape/secret.txt", content: "overwritten\n" });
		expect(`${write.stdout}${write.stderr}`).toMatch(/outside the workspace/);
		const grep = await call("grep", { pattern: "TOP-SECRET", path: "escape" });
		expect(`${grep.stdout}${grep.stderr}`).not.toMatch(/secret\.txt:1/);
	}, 60_000);
});
