import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { startUserMcpServer, type UserMcpServer } from "../cli/helpers/user-mcp-server.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

/**
 * A sandbox keeps a protected file of a writable folder read-only by binding it onto itself, and
 * Linux lifts such a bind in the sandbox when the name is renamed over outside it. A background
 * job the model started waits; the model then asks to change `.envrc` (the user approves the
 * change they read); toolbelt's write replaced the file by rename, and the waiting job appended
 * its own line to the approved `.envrc`, which direnv then runs once the user allows it. Now
 * toolbelt's writes to a name a live sandbox holds keep its inode.
 */
const unavailable = await sandboxUnavailableReason();
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

async function waitFor(path: string, timeoutMs: number): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (!existsSync(path) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
	return existsSync(path);
}

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"an approved write of a protected file leaves it read-only to a running job (built CLI, as %s)",
	(user: TestUser) => {
		let root = "";
		let server: UserMcpServer | undefined;
		const dir = () => join(root, "project");

		beforeAll(async () => {
			ensureBuiltCli();
			root = await mkdtemp(join(tmpdir(), "toolbelt-bound-writes-"));
			await mkdir(join(root, "home"), { recursive: true });
			await mkdir(dir(), { recursive: true });
			await writeFile(join(dir(), ".envrc"), "export STAGE=one\n");
			execFileSync("git", ["init", "-q"], { cwd: dir() });
			await handOver(root, user);
			server = await startUserMcpServer({
				user,
				cwd: dir(),
				env: cleanEnv({ HOME: join(root, "home"), GIT_CONFIG_NOSYSTEM: "1" }),
				flags: ["--sandbox", "--allow", "write(/.envrc)", "--allow", "edit(/.envrc)", "--allow", "apply_patch"],
			});
		});
		afterAll(async () => {
			await server?.close();
			await rm(root, { recursive: true, force: true });
		});

		/** Each case starts from the same `.envrc`, read in the session (a write replaces only what was read). */
		async function freshEnvrc(): Promise<string> {
			const content = "export STAGE=one\n";
			await writeFile(join(dir(), ".envrc"), content);
			await handOver(join(dir(), ".envrc"), user);
			await server?.call("read", { path: ".envrc" });
			return content;
		}

		/** Starts a job that, once `go-<name>` exists, tries to append to `.envrc` and says how it went. */
		async function waitingJob(name: string) {
			const names = { started: `started-${name}`, go: `go-${name}`, result: `result-${name}` };
			// The job tries once the approved change is on disk: deterministic, no race to win.
			const job =
				`touch ${names.started}; while [ ! -e ${names.go} ]; do sleep 0.05; done; ` +
				`if printf 'touch planted\\n' >> .envrc 2>/dev/null; then echo wrote > ${names.result}; else echo refused > ${names.result}; fi`;
			const started = await server?.call("bash", { command: job, run_in_background: true, timeout: 100 });
			expect(started?.isError, started?.text).toBe(false);
			expect(await waitFor(join(dir(), names.started), 60_000)).toBe(true);
			return {
				/** Lets the job try, and resolves with what it found: "wrote" or "refused". */
				async attempt(): Promise<string> {
					await writeFile(join(dir(), names.go), "");
					await handOver(join(dir(), names.go), user);
					expect(await waitFor(join(dir(), names.result), 60_000)).toBe(true);
					return readFileSync(join(dir(), names.result), "utf8").trim();
				},
			};
		}

		it.each(["write", "edit"] as const)("through %s", async (tool) => {
			const before = await freshEnvrc();
			const job = await waitingJob(tool);

			const changed = before.replace(/export STAGE=\w+/, `export STAGE=${tool}`);
			const answer =
				tool === "write"
					? await server?.call("write", { path: ".envrc", content: changed })
					: await server?.call("edit", { path: ".envrc", old_string: before.trim(), new_string: changed.trim() });
			expect(answer?.isError, answer?.text).toBe(false);

			expect(await job.attempt()).toBe("refused");
			expect(readFileSync(join(dir(), ".envrc"), "utf8")).toBe(changed);
		});

		it("a removal waits for the job: the name cannot be freed for it to fill", async () => {
			const before = await freshEnvrc();
			const job = await waitingJob("delete");
			const patch = "*** Begin Patch\n*** Delete File: .envrc\n*** End Patch";
			const refused = await server?.call("apply_patch", { patch });
			expect(refused?.isError, refused?.text).toBe(true);
			expect(refused?.text).toMatch(/still running/);
			expect(await job.attempt()).toBe("refused");
			expect(readFileSync(join(dir(), ".envrc"), "utf8")).toBe(before);
			// Once the job has ended, nothing holds the name: the same removal goes through.
			const deadline = Date.now() + 60_000;
			let removed = await server?.call("apply_patch", { patch });
			while (removed?.isError && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 200));
				removed = await server?.call("apply_patch", { patch });
			}
			expect(removed?.isError, removed?.text).toBe(false);
			expect(existsSync(join(dir(), ".envrc"))).toBe(false);
		});
	},
);
