// The language servers of diagnostics run outside any sandbox, started by toolbelt itself after a
// change: they get the commands' environment (no secret of toolbelt's), and beside the sandbox not
// the workspace's own typescript, which a sandboxed command can rewrite (what it writes must not run
// later outside the sandbox). Through the built CLI, as root and as an unprivileged user.
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, testUsers } from "../helpers/test-users.js";
import { userWorkspace } from "../helpers/user-workspace.js";
import { eventually } from "../tools/shell/survivors.js";

const unavailable = await sandboxUnavailableReason();

// A CLI start and a language server's per test, seconds each on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const EDIT = JSON.stringify({ path: "a.txt", old_string: "one", new_string: "two" });

describe.each(testUsers())("as %s", (user) => {
	it("a language server gets the commands' environment: no secret-named variable, no credential in a value", async () => {
		ensureBuiltCli();
		const { workspace, home, env } = await userWorkspace(tempDir(), user, {
			TOOLBELT_DIAGNOSTICS: "1",
			GITHUB_TOKEN: "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
			BILLING_SERVICE_PASSWORD: "hunter2-from-the-env",
			DATABASE_URL: "postgres://app:pw-in-the-url@db.example/app",
			PLAIN_SETTING: "kept-as-is",
		});
		// A user's server (settings) that writes the environment it got, then waits as a server does.
		const marker = join(home, "server-environment");
		const server = join(home, "env-server.sh");
		await writeFile(server, `#!/bin/sh\nenv > '${marker}'\nexec cat > /dev/null\n`);
		await chmod(server, 0o755);
		await mkdir(join(home, ".toolbelt"));
		const settings = { diagnostics: { servers: { text: { command: [server], extensions: [".txt"] } } } };
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings), { mode: 0o600 });
		await handOver(tempDir(), user);

		const run = await cli.run(["tool", "edit", EDIT], { cwd: workspace, env, user });
		expect(run.code, run.stderr).toBe(0);
		expect(await eventually(() => existsSync(marker), 10_000)).toBe(true);
		const seen = readFileSync(marker, "utf8");
		expect(seen).toContain("PLAIN_SETTING=kept-as-is");
		for (const secret of ["ghp_0123456789", "hunter2-from-the-env", "pw-in-the-url"])
			expect(seen).not.toContain(secret);
	});

	it.skipIf(unavailable !== undefined)(
		"beside the sandbox, the workspace's own typescript is not what the language server runs, even in a trusted folder",
		async () => {
			ensureBuiltCli();
			const { workspace, env } = await userWorkspace(tempDir(), user, { TOOLBELT_DIAGNOSTICS: "1" });
			// What a sandboxed `npm install` (or any command) could leave: a tsserver that runs as the user, outside.
			const marker = join(tempDir(), "workspace-tsserver-ran");
			const typescript = join(workspace, "node_modules", "typescript");
			await mkdir(join(typescript, "lib"), { recursive: true });
			await writeFile(join(typescript, "package.json"), JSON.stringify({ name: "typescript", version: "5.9.3" }));
			await writeFile(
				join(typescript, "lib", "tsserver.js"),
				`require("fs").writeFileSync(${JSON.stringify(marker)}, "ran"); setInterval(() => {}, 1000);\n`,
			);
			await writeFile(join(workspace, "count.ts"), "export const count: number = 1;\n");
			await handOver(tempDir(), user);
			const edit = (from: string, to: string) => JSON.stringify({ path: "count.ts", old_string: from, new_string: to });

			// Trusted, without the sandbox: the workspace's typescript is the one (the check can see it run).
			const trusted = await cli.run(["tool", "edit", edit("= 1;", "= 2;"), "--trust-project"], {
				cwd: workspace,
				env,
				user,
			});
			expect(trusted.code, trusted.stderr).toBe(0);
			expect(await eventually(() => existsSync(marker), 20_000)).toBe(true);
			await rm(marker);

			const sandboxed = await cli.run(["tool", "edit", edit("= 2;", "= 3;"), "--trust-project", "--sandbox"], {
				cwd: workspace,
				env,
				user,
			});
			expect(sandboxed.code, sandboxed.stderr).toBe(0);
			expect(await eventually(() => existsSync(marker), 3_000)).toBe(false);
		},
	);
});
