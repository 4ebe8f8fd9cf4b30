import { execFile } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { recordProjectTrust, settingsContentHash } from "../../src/safety/trust/trust.js";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { bindMountPrefix, useSshd } from "../remote/sshd-fixture.js";

// Red-team tests of issue 15: with --workspace ssh://…, the project settings are the REMOTE
// project's, read over the connection, trust-gated exactly as locally, and keyed by the remote's
// URL. The "remote" is a loopback sshd whose sessions see a disk view of their own: in its mount
// namespace `remote-view/` is bound over `project/`, so the same path holds one thing locally and
// another remotely — as on a real second machine.

const run = promisify(execFile);
const root = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-remote-settings-")));
/** The workspace folder: its path is the same on both sides, its contents differ. */
const project = join(root, "project");
/** What the remote side sees at `project` (written here, read there through the bind mount). */
const remoteView = join(root, "remote-view");
const home = join(root, "home");
const localStart = join(root, "local");
for (const folder of [project, remoteView, home, localStart]) mkdirSync(folder, { recursive: true });

const state = useSshd({ launchPrefix: bindMountPrefix(remoteView, project) });
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(() => {
	ensureBuiltCli();
});

/** Empties a folder, keeping the folder itself: sshd's bind mount holds on to that very directory. */
function reset(folder: string): void {
	for (const name of readdirSync(folder)) rmSync(join(folder, name), { recursive: true, force: true });
}

// The local view of `project` is bound over only in sshd's namespace; here it is a plain folder.
beforeEach(() => {
	for (const folder of [remoteView, home, localStart, project]) reset(folder);
});

function writeSettings(folder: string, settings: unknown): string {
	mkdirSync(join(folder, ".toolbelt"), { recursive: true });
	const text = JSON.stringify(settings, null, 2);
	writeFileSync(join(folder, ".toolbelt", "settings.json"), text);
	return text;
}

/** `toolbelt tool NAME ARGS --workspace ssh://…/project` started in `localStart`, as a user starts it. */
async function tool(
	name: string,
	args: Record<string, unknown>,
	flags: string[] = [],
	folder = project,
): Promise<{ code: number; output: string }> {
	const sshd = state.sshd;
	if (!sshd) throw new Error("no sshd");
	const options = sshd.sshOptions.flatMap((option) => ["--ssh-option", option]);
	const argv = [ensureBuiltCli(), "tool", name, JSON.stringify(args), "--workspace", `${sshd.urlPrefix}${folder}`];
	try {
		const result = await run(process.execPath, [...argv, ...options, ...flags], {
			cwd: localStart,
			env: cleanEnv({ HOME: home }),
			timeout: 30_000,
		});
		return { code: 0, output: `${result.stdout}${result.stderr}` };
	} catch (error) {
		const failed = error as { code?: number; stdout?: string; stderr?: string; killed?: boolean };
		if (failed.killed) throw new Error(`toolbelt did not finish in 30 s: ${failed.stderr}`);
		return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
	}
}

/** A project file whose PreToolUse hook (a command run on THIS machine) leaves a marker named `word`. */
const hookMarking = (word: string) => ({
	hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch '${join(root, word)}'` }] }] },
});
/** True once the hook of `hookMarking(word)` ran; removes the marker. */
function hookRan(word: string): boolean {
	const ran = existsSync(join(root, word));
	rmSync(join(root, word), { force: true });
	return ran;
}

describe("project settings of a remote workspace come from the remote project", () => {
	it("the remote project's deny rule applies (its file exists only on the remote disk)", async (context) => {
		if (!state.sshd) return context.skip();
		writeFileSync(join(remoteView, "secret.txt"), "REMOTE-SECRET\n");
		writeSettings(remoteView, { permissions: { deny: ["read(secret.txt)"] } });
		const result = await tool("read", { path: "secret.txt" });
		expect(result.output).not.toContain("REMOTE-SECRET");
		expect(result.output).toMatch(/deny|denied/i);
	}, 60_000);

	it("the settings of the local folder toolbelt started in, and of the local folder at the remote's path, do not apply", async (context) => {
		if (!state.sshd) return context.skip();
		// Locally trusted allow rules in both local places: neither may reach the remote workspace.
		// Locally trusted hooks in both local places: neither may reach the remote workspace.
		const atStart = writeSettings(localStart, hookMarking("local-start"));
		await recordProjectTrust({ realProjectDir: localStart, contentHash: settingsContentHash(atStart) }, home);
		const samePath = writeSettings(project, hookMarking("same-path"));
		await recordProjectTrust({ realProjectDir: project, contentHash: settingsContentHash(samePath) }, home);
		const result = await tool("ls", {});
		expect(result.code).toBe(0);
		expect(hookRan("local-start")).toBe(false);
		expect(hookRan("same-path")).toBe(false);
	}, 60_000);

	it("a trust record for the same local path does not trust the remote folder; one for its URL does, until the file changes", async (context) => {
		if (!state.sshd) return context.skip();
		// The same bytes on both sides, and the user trusted the LOCAL folder of that path.
		const text = writeSettings(remoteView, hookMarking("from-remote"));
		writeSettings(project, hookMarking("from-remote"));
		await recordProjectTrust({ realProjectDir: project, contentHash: settingsContentHash(text) }, home);
		const untrusted = await tool("ls", {});
		expect(hookRan("from-remote")).toBe(false);
		expect(untrusted.output).toContain("not trusted");
		expect(untrusted.output).toContain(`${state.sshd.urlPrefix}${project}/.toolbelt/settings.json`);

		// Trusted by its URL: the allow rule applies.
		const remoteKey = `${state.sshd.urlPrefix}${project}`;
		await recordProjectTrust({ realProjectDir: remoteKey, contentHash: settingsContentHash(text) }, home);
		const trusted = await tool("ls", {});
		expect(trusted.code).toBe(0);
		expect(hookRan("from-remote")).toBe(true);

		// The remote file changed after the user trusted it: the hash decides, it asks again.
		writeSettings(remoteView, { ...hookMarking("from-remote"), permissions: { allow: ["bash(echo more)"] } });
		const changed = await tool("ls", {});
		expect(hookRan("from-remote")).toBe(false);
		expect(changed.output).toContain("not trusted");
	}, 90_000);

	it("trustedProjects naming local folders never covers the remote one; a URL entry does", async (context) => {
		if (!state.sshd) return context.skip();
		writeSettings(remoteView, hookMarking("listed"));
		writeSettings(project, hookMarking("listed"));
		writeSettings(home, { trustedProjects: ["/**", project] });
		expect((await tool("ls", {})).code).toBe(0);
		expect(hookRan("listed")).toBe(false);
		writeSettings(home, { trustedProjects: [`${state.sshd.urlPrefix}${root}/**`] });
		expect((await tool("ls", {})).code).toBe(0);
		expect(hookRan("listed")).toBe(true);
	}, 60_000);

	it("a remote settings file that is a symlink out of the project is refused, not followed", async (context) => {
		if (!state.sshd) return context.skip();
		const outside = join(root, "elsewhere.json");
		writeFileSync(outside, JSON.stringify(hookMarking("outside")));
		mkdirSync(join(remoteView, ".toolbelt"));
		symlinkSync(outside, join(remoteView, ".toolbelt", "settings.json"));
		const result = await tool("ls", {}, ["--trust-project"]);
		expect(result.code).toBe(2);
		expect(result.output).toContain("outside its project folder");
		expect(hookRan("outside")).toBe(false);
	}, 60_000);

	it("a huge remote settings file, or one that never ends, is refused without being read whole", async (context) => {
		if (!state.sshd) return context.skip();
		mkdirSync(join(remoteView, ".toolbelt"));
		// Valid JSON, 2 MiB: only its size is wrong.
		writeFileSync(join(remoteView, ".toolbelt", "settings.json"), `${" ".repeat(2 * 1024 * 1024)}{}`);
		const huge = await tool("read", { path: "x" });
		expect(huge.code).toBe(2);
		expect(huge.output).toContain("at most 1048576 bytes");

		rmSync(join(remoteView, ".toolbelt", "settings.json"));
		symlinkSync("/dev/zero", join(remoteView, ".toolbelt", "settings.json"));
		const endless = await tool("read", { path: "x" });
		expect(endless.code).toBe(2);
		expect(endless.output).toContain("not a regular file");
	}, 60_000);

	it("a trusted remote project's hook runs on this machine, also when the remote folder does not exist here", async (context) => {
		if (!state.sshd) return context.skip();
		// `project/app` exists only in the remote view.
		const app = join(remoteView, "app");
		mkdirSync(app);
		writeSettings(app, hookMarking("hook-ran"));
		const result = await tool("ls", {}, ["--trust-project"], join(project, "app"));
		expect(result.code).toBe(0);
		expect(hookRan("hook-ran")).toBe(true);
	}, 60_000);
});
