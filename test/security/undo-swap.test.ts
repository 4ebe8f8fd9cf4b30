// `toolbelt undo` writes where the checkpoint's path leads at the time of the undo. A file deleted
// by apply_patch whose folder a sandboxed command then swapped for a link (to `.git/hooks`, to
// `$HOME`, to any folder outside) must not be restored through that link: a `pre-commit` hook or
// a `~/.bash_aliases` written there runs later; `--force` must not delete a file outside. The
// restore is judged as a write is, at the point of use, on the local disk and over ssh.
import { copyFile, lstat, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { useSshd } from "../remote/sshd-fixture.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const ssh = useSshd();

const HOOK = "#!/bin/sh\ntouch /tmp/toolbelt-pwned-by-hook\n";
const ALIASES = "alias ls='touch /tmp/toolbelt-pwned'\n";

interface Place {
	workspace: string;
	home: string;
	outside: string;
	env: Record<string, string>;
	/** Extra CLI arguments: `--workspace ssh://…` and its ssh options over ssh, else none. */
	remote: string[];
}

/**
 * A workspace with `.git/hooks/`, `tools/pre-commit` (mode 755), `conf/.bash_aliases`, a home and
 * a folder outside, all the user's. Over ssh the client's key and known hosts are copied into the
 * user's own home (ssh refuses keys another user can read, and nobody could not read root's).
 */
async function layout(user: TestUser, overSsh: boolean): Promise<Place> {
	const workspace = join(tempDir(), "workspace");
	const home = join(tempDir(), "home");
	const outside = join(tempDir(), "outside");
	await mkdir(join(workspace, ".git", "hooks"), { recursive: true });
	await mkdir(join(workspace, "tools"));
	await mkdir(join(workspace, "conf"));
	await mkdir(outside);
	await mkdir(home);
	await writeFile(join(workspace, "tools", "pre-commit"), HOOK, { mode: 0o755 });
	await writeFile(join(workspace, "conf", ".bash_aliases"), ALIASES);
	const remote: string[] = [];
	const sshd = ssh.sshd;
	if (overSsh && sshd) {
		await mkdir(join(home, ".ssh"), { mode: 0o700 });
		const options = await Promise.all(
			sshd.sshOptions.map(async (option) => {
				const [key, value = ""] = option.split("=");
				if (key !== "IdentityFile" && key !== "UserKnownHostsFile") return option;
				const copy = join(home, ".ssh", key);
				await copyFile(value, copy);
				return `${key}=${copy}`;
			}),
		);
		remote.push(
			"--workspace",
			`${sshd.urlPrefix}${workspace}`,
			...options.flatMap((option) => ["--ssh-option", option]),
		);
	}
	await handOver(tempDir(), user);
	return { workspace, home, outside, env: cleanEnv({ HOME: home }), remote };
}

function toolbelt(place: Place, user: TestUser, ...args: string[]) {
	// Over ssh the local working folder is not the workspace: nothing may be written through it.
	const cwd = place.remote.length > 0 ? place.home : place.workspace;
	return cli.run([...args, ...place.remote], { cwd, env: place.env, user });
}

async function applyPatch(place: Place, user: TestUser, ...lines: string[]): Promise<void> {
	const patch = ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
	const result = await toolbelt(place, user, "tool", "apply_patch", JSON.stringify({ patch }));
	expect(result.code, result.stderr).toBe(0);
}

/** Replaces the workspace folder `name` with a symlink to `target`, as a sandboxed command could. */
async function swapForLink(place: Place, user: TestUser, name: string, target: string): Promise<void> {
	await rm(join(place.workspace, name), { recursive: true, force: true });
	await symlink(target, join(place.workspace, name));
	await handOver(tempDir(), user);
}

const exists = (path: string) =>
	lstat(path).then(
		() => true,
		() => false,
	);

const backends = ["local", "ssh"] as const;

describe.each(testUsers())("undo through a swapped folder, as %s", (user) => {
	describe.each(backends)("on the %s backend", (backend) => {
		const skipped = () => backend === "ssh" && !ssh.sshd;

		it("does not write a pre-commit hook into .git/hooks", async (context) => {
			if (skipped()) return context.skip();
			const place = await layout(user, backend === "ssh");
			await applyPatch(place, user, "*** Delete File: tools/pre-commit");
			await swapForLink(place, user, "tools", join(place.workspace, ".git", "hooks"));

			const undo = await toolbelt(place, user, "undo");
			expect(await exists(join(place.workspace, ".git", "hooks", "pre-commit"))).toBe(false);
			expect(undo.code).toBe(1);
		}, 60_000);

		it("does not write ~/.bash_aliases", async (context) => {
			if (skipped()) return context.skip();
			const place = await layout(user, backend === "ssh");
			await applyPatch(place, user, "*** Delete File: conf/.bash_aliases");
			await swapForLink(place, user, "conf", place.home);

			const undo = await toolbelt(place, user, "undo");
			expect(await exists(join(place.home, ".bash_aliases"))).toBe(false);
			expect(undo.code).toBe(1);
			// The refused entry is dropped from the log: a forced undo afterwards has nothing to write there.
			await toolbelt(place, user, "undo", "--force");
			expect(await exists(join(place.home, ".bash_aliases"))).toBe(false);
		}, 60_000);

		it("undo --force does not delete a file outside", async (context) => {
			if (skipped()) return context.skip();
			const place = await layout(user, backend === "ssh");
			await applyPatch(place, user, "*** Add File: tools/notes.txt", "+notes");
			await writeFile(join(place.outside, "notes.txt"), "the user's own notes\n");
			await swapForLink(place, user, "tools", place.outside);

			const undo = await toolbelt(place, user, "undo", "--force");
			expect(await readFile(join(place.outside, "notes.txt"), "utf8")).toBe("the user's own notes\n");
			expect(undo.code).toBe(1);
		}, 60_000);

		it("a folder that is still a folder is restored (the positive control)", async (context) => {
			if (skipped()) return context.skip();
			const place = await layout(user, backend === "ssh");
			await applyPatch(place, user, "*** Delete File: tools/pre-commit");

			const undo = await toolbelt(place, user, "undo");
			expect(undo.code, undo.stderr).toBe(0);
			expect(await readFile(join(place.workspace, "tools", "pre-commit"), "utf8")).toBe(HOOK);
			expect(((await lstat(join(place.workspace, "tools", "pre-commit"))).mode & 0o777).toString(8)).toBe("755");
		}, 60_000);
	});
});
