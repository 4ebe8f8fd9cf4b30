// `toolbelt undo` writes where the checkpoint's path leads at the time of the undo. A file deleted
// by apply_patch whose folder a sandboxed command then swapped for a link (to `.git/hooks`, to
// `$HOME`, to any folder outside) must not be restored through that link: a `pre-commit` hook or
// a `~/.bash_aliases` written there runs later; `--force` must not delete a file outside. The
// restore is judged as a write is, at the point of use, on the local disk and over ssh.
// The cases of a user and backend share one sequence of CLI starts (see `attack`), each case
// still asserting its own effect: a CLI start per step cost 9 starts per user and backend.
import { copyFile, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { useSshd } from "../remote/sshd-fixture.js";

const cli = new CliProcesses();
afterAll(() => cli.killAll());
// One folder per user and backend, made by its beforeAll and kept until its cases have looked.
let currentRoot = "";
const tempDir = () => currentRoot;

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

/** What the cases below look at, gathered by one sequence of CLI starts per user and backend. */
interface Outcome {
	place: Place;
	/** `undo` of one apply_patch whose folders `tools` and `conf` were swapped for links, `keep` left alone. */
	undo: { code: number | null; stderr: string };
	/** `undo --force` of a file added in `notes`, swapped for a link to a folder outside. */
	forced: { code: number | null; stderr: string };
}

/**
 * The attacks, in sequence on one workspace (4 CLI starts instead of 9): one apply_patch deletes
 * `tools/pre-commit`, `conf/.bash_aliases` and `keep/pre-commit`; `tools` becomes a link to
 * `.git/hooks`, `conf` one to the home; one `undo`. Then apply_patch adds `notes/notes.txt`,
 * `notes` becomes a link to a folder outside holding the user's own notes.txt; `undo --force`.
 */
async function attack(user: TestUser, backend: (typeof backends)[number]): Promise<Outcome> {
	const place = await layout(user, backend === "ssh");
	await mkdir(join(place.workspace, "keep"));
	await mkdir(join(place.workspace, "notes"));
	await writeFile(join(place.workspace, "keep", "pre-commit"), HOOK, { mode: 0o755 });
	await handOver(tempDir(), user);
	await applyPatch(
		place,
		user,
		"*** Delete File: tools/pre-commit",
		"*** Delete File: conf/.bash_aliases",
		"*** Delete File: keep/pre-commit",
	);
	await swapForLink(place, user, "tools", join(place.workspace, ".git", "hooks"));
	await swapForLink(place, user, "conf", place.home);
	const undo = await toolbelt(place, user, "undo");

	await applyPatch(place, user, "*** Add File: notes/notes.txt", "+notes");
	await writeFile(join(place.outside, "notes.txt"), "the user's own notes\n");
	await swapForLink(place, user, "notes", place.outside);
	const forced = await toolbelt(place, user, "undo", "--force");
	return { place, undo, forced };
}

describe.each(testUsers())("undo through a swapped folder, as %s", (user) => {
	describe.each(backends)("on the %s backend", (backend) => {
		const skipped = () => backend === "ssh" && !ssh.sshd;
		let outcome: Outcome;
		let root = "";
		beforeAll(async () => {
			root = await mkdtemp(join(tmpdir(), "toolbelt-undo-swap-"));
			currentRoot = root;
			if (!skipped()) outcome = await attack(user, backend);
		}, 240_000);
		afterAll(async () => {
			await rm(root, { recursive: true, force: true, maxRetries: 3 });
		});

		it("does not write a pre-commit hook into .git/hooks", async (context) => {
			if (skipped()) return context.skip();
			expect(await exists(join(outcome.place.workspace, ".git", "hooks", "pre-commit"))).toBe(false);
			expect(outcome.undo.code, outcome.undo.stderr).toBe(1);
		});

		it("does not write ~/.bash_aliases, not even by a forced undo afterwards", async (context) => {
			if (skipped()) return context.skip();
			// The refused entry is dropped from the log: the forced undo that follows has nothing to write there.
			expect(await exists(join(outcome.place.home, ".bash_aliases"))).toBe(false);
			expect(outcome.undo.code, outcome.undo.stderr).toBe(1);
		});

		it("undo --force does not delete a file outside", async (context) => {
			if (skipped()) return context.skip();
			expect(await readFile(join(outcome.place.outside, "notes.txt"), "utf8")).toBe("the user's own notes\n");
			expect(outcome.forced.code, outcome.forced.stderr).toBe(1);
		});

		it("a folder that is still a folder is restored by the same undo (the positive control)", async (context) => {
			if (skipped()) return context.skip();
			const restored = join(outcome.place.workspace, "keep", "pre-commit");
			expect(await readFile(restored, "utf8"), outcome.undo.stderr).toBe(HOOK);
			expect(((await lstat(restored)).mode & 0o777).toString(8)).toBe("755");
		});
	});
});
