// Red-team tests of the sandbox where agents often run: as root (CI runners, dev containers), and
// as an unprivileged user. Each drives the built CLI (`toolbelt tool bash '{…}' --sandbox`) and
// looks for an effect on the host: a host file written, a hook run, a secret printed.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { requiredInCi, sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers, unprivilegedIdentity, userPrefix } from "../helpers/test-users.js";
import { gitIdentity } from "./git-identity.js";

const unavailable = await sandboxUnavailableReason();
const keyctl = ["/usr/bin/keyctl", "/bin/keyctl"].find((path) => existsSync(path));
const keyctlMissing = requiredInCi("keyctl (Debian package keyutils)", keyctl ? undefined : "keyctl is not installed");

// Several CLI starts per test, each a few seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const tempDir = useTempDir();
const cli = new CliProcesses();
// The sandbox's /tmp is an empty tmpfs: a home directory there would be out of sight anyway. So
// the home and the host files the attacks aim at live under /var/tmp, as a real ~ lives outside /tmp.
let outside = "";
beforeEach(async () => {
	outside = await mkdtemp(join("/var/tmp", "toolbelt-sandbox-root-"));
});
afterEach(async () => {
	cli.killAll();
	await rm(outside, { recursive: true, force: true });
});

const identity = gitIdentity;

const home = () => join(outside, "home");

/** Runs a program on the host as `user`, as they would after the session. */
function asUser(user: TestUser, cwd: string, file: string, args: string[]): string {
	const [program, ...rest] = [...userPrefix(user), file, ...args];
	return execFileSync(program ?? file, rest, {
		cwd,
		env: cleanEnv({ HOME: home(), ...identity }),
		encoding: "utf8",
		stdio: ["ignore", "pipe", "pipe"],
	});
}

/** Hands the test's folders to `user`, then runs one bash command through the built CLI with `--sandbox`. */
async function sandboxed(user: TestUser, cwd: string, command: string, through?: string[]) {
	await handOver(tempDir(), user);
	await handOver(outside, user);
	return cli.run(["tool", "bash", JSON.stringify({ command }), "--sandbox"], {
		cwd,
		user,
		env: cleanEnv({ HOME: home(), ...identity }),
		through,
	});
}

async function repository(user: TestUser): Promise<string> {
	const repo = join(tempDir(), "repo");
	await mkdir(repo, { recursive: true });
	await mkdir(home(), { recursive: true });
	await writeFile(join(repo, "file.txt"), "content\n");
	await handOver(tempDir(), user);
	await handOver(outside, user);
	for (const args of [
		["init", "-q"],
		["add", "-A"],
		["commit", "-q", "-m", "initial"],
	])
		asUser(user, repo, "git", args);
	return repo;
}

describe.skipIf(unavailable !== undefined)("the sandbox, as root and as an unprivileged user", () => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	describe.each(testUsers())("as %s", (user) => {
		it("remounting / read-write writes no host file", async () => {
			const repo = await repository(user);
			const target = join(outside, "host-file");
			const run = await sandboxed(
				user,
				repo,
				`for m in / "$(findmnt -no TARGET -T ${outside})"; do mount -o remount,bind,rw "$m"; done; echo planted > ${target}`,
			);
			expect(run.code).not.toBe(0);
			expect(existsSync(target)).toBe(false);
		});

		it("umount -l .git, then core.fsmonitor: the user's next git status runs nothing", async () => {
			const repo = await repository(user);
			const marker = join(outside, "fsmonitor-ran");
			await sandboxed(user, repo, `umount -l .git; git config core.fsmonitor "touch ${marker}; false"`);
			asUser(user, repo, "git", ["status", "--porcelain"]);
			expect(existsSync(marker)).toBe(false);
		});

		it("umount -l ~/.ssh shows no key", async () => {
			const repo = await repository(user);
			await mkdir(join(home(), ".ssh"), { recursive: true });
			await writeFile(join(home(), ".ssh", "id_ed25519"), "SSH-KEY-SECRET\n");
			await chmod(join(home(), ".ssh", "id_ed25519"), 0o600);
			const run = await sandboxed(user, repo, "umount -l ~/.ssh; cat ~/.ssh/id_ed25519; echo done");
			expect(run.stdout).toContain("done");
			expect(run.stdout + run.stderr).not.toContain("SSH-KEY-SECRET");
		});

		it.skipIf(keyctlMissing !== undefined)("keyctl cannot read the session keyring it inherits", async () => {
			const repo = await repository(user);
			// The CLI starts in a session keyring holding a key, as a login session's would.
			const through = [
				keyctl ?? "keyctl",
				"session",
				"-",
				"/bin/sh",
				"-c",
				'keyctl add user toolbelt-test KEYRING-SECRET @s >/dev/null && exec "$@"',
				"sh",
			];
			const control = await cli.run(["tool", "bash", JSON.stringify({ command: "keyctl print %user:toolbelt-test" })], {
				cwd: repo,
				user,
				env: cleanEnv({ HOME: home(), ...identity }),
				through,
			});
			// Unsandboxed, the command reads it: the key is there to be taken.
			expect(control.stdout).toContain("KEYRING-SECRET");
			const run = await sandboxed(user, repo, "keyctl print %user:toolbelt-test; keyctl show @s; echo done", through);
			expect(run.stdout).toContain("done");
			expect(run.stdout + run.stderr).not.toContain("KEYRING-SECRET");
		});

		it("makes no namespace, nested user namespaces included", async () => {
			const repo = await repository(user);
			// Each marker is printed only when its namespace was made; the command text does not hold it.
			const run = await sandboxed(
				user,
				repo,
				"unshare -U true && echo user-$((6*7)); unshare -Ur true && echo root-$((6*7)); " +
					"unshare -m true && echo mount-$((6*7)); unshare -n true && echo net-$((6*7)); " +
					"bwrap --ro-bind / / true && echo bwrap-$((6*7)); echo done",
			);
			expect(run.stdout).toContain("done");
			for (const marker of ["user-42", "root-42", "mount-42", "net-42", "bwrap-42"]) {
				expect(run.stdout).not.toContain(marker);
			}
		});

		it("leaves no set-user-ID or set-group-ID program behind (chmod, install -m, open with a mode), ordinary modes still work", async () => {
			const repo = await repository(user);
			// Each way a program gets the bits: chmod (fchmodat), install -m (fchmod), Node's chmod and open with a mode (openat).
			const node =
				"const fs=require('fs');fs.writeFileSync('by-node','');fs.chmodSync('by-node',0o6755);fs.closeSync(fs.openSync('by-open','w',0o4755))";
			const run = await sandboxed(
				user,
				repo,
				`cp /bin/true by-chmod; chmod 4755 by-chmod; cp /bin/true by-chmod-g; chmod g+s by-chmod-g; install -m 6755 /bin/true by-install; node -e "${node}"; ` +
					"cp /bin/true plain; chmod 700 plain; echo done",
			);
			expect(run.stdout).toContain("done");
			expect(existsSync(join(repo, "by-chmod"))).toBe(true);
			// A set-user-ID file of the invoking user would run as them for anyone who starts it (as root: a root shell).
			for (const name of ["by-chmod", "by-chmod-g", "by-install", "by-node", "by-open"]) {
				const path = join(repo, name);
				if (existsSync(path)) expect(statSync(path).mode & 0o6000, name).toBe(0);
			}
			expect(statSync(join(repo, "plain")).mode & 0o7777).toBe(0o700);
		});

		it("started in the home folder: a planted ~/.bashrc, ~/.profile or ~/.ssh/config runs nothing in the user's next shell", async () => {
			await mkdir(home(), { recursive: true });
			const marker = join(outside, "shell-start-ran");
			const plant = (path: string, line: string) =>
				`node -e "require('fs').mkdirSync(require('path').dirname('${path}'),{recursive:true});require('fs').appendFileSync('${path}','${line}\\n')"`;
			const run = await sandboxed(
				user,
				home(),
				[
					plant(".bashrc", `touch ${marker}`),
					plant(".profile", `touch ${marker}`),
					plant(".ssh/config", `Host *\\n  ProxyCommand touch ${marker}`),
				].join("; "),
			);
			asUser(user, home(), "bash", ["-i", "-c", "true"]);
			asUser(user, home(), "bash", ["-l", "-c", "true"]);
			expect(existsSync(marker)).toBe(false);
			// ssh reads the passwd entry's home, not $HOME: the file itself must not be there.
			for (const name of [".bashrc", ".profile", join(".ssh", "config")])
				expect(existsSync(join(home(), name)), name).toBe(false);
			// Refused, and told why.
			expect(run.stdout + run.stderr).toMatch(/home folder/);
		});

		it("a descriptor toolbelt inherited open for writing (a parent's exec 200>>file) writes no host file", async () => {
			const repo = await repository(user);
			const target = join(outside, "inherited-target");
			await writeFile(target, "");
			await handOver(outside, user);
			// The parent leaves the descriptor open (no close-on-exec), as a shell's `exec 200>>file` does.
			const through = ["/bin/bash", "-c", 'exec 200>>"$0" 201<>"$0"; exec "$@"', target];
			const run = await sandboxed(
				user,
				repo,
				"echo planted >&200; echo planted >&201; ls /proc/self/fd; echo done",
				through,
			);
			expect(run.stdout).toContain("done");
			expect(readFileSync(target, "utf8")).toBe("");
		});

		it("writes no kernel setting (/proc/sys: as uid 0, core_pattern or modprobe would run a program as the host's root)", async () => {
			const repo = await repository(user);
			// The NIS domain name stands in for every setting: harmless, global, and put back below.
			const setting = "/proc/sys/kernel/domainname";
			const before = readFileSync(setting, "utf8");
			try {
				const run = await sandboxed(user, repo, `echo toolbelt-planted > ${setting}; echo done`);
				expect(run.stdout).toContain("done");
				expect(readFileSync(setting, "utf8")).toBe(before);
			} finally {
				if (readFileSync(setting, "utf8") !== before) await writeFile(setting, before);
			}
		});

		it("a writable path inside the workspace that a command swapped for a link to a host folder is not made writable", async () => {
			const repo = await repository(user);
			const target = join(outside, "host-folder");
			await mkdir(target, { recursive: true });
			await mkdir(join(repo, "build", "cache", "out"), { recursive: true });
			await mkdir(join(home(), ".toolbelt"), { recursive: true });
			const settings = join(home(), ".toolbelt", "settings.json");
			await writeFile(settings, JSON.stringify({ sandbox: { writablePaths: ["./build/cache/out"] } }));
			const plant = `node -e "require('fs').writeFileSync('build/cache/out/planted','x')"; node -e "require('fs').writeFileSync('cache/planted','x')"`;
			// With the setting on: the writable path is a mount point inside, and so are the folders on the way.
			const swap = `node -e "const fs=require('fs');fs.renameSync('build','moved');fs.mkdirSync('build/cache',{recursive:true});fs.symlinkSync('${target}','build/cache/out')"`;
			const swapped = await sandboxed(user, repo, swap);
			const afterSwap = await sandboxed(user, repo, plant);
			// Before the user names the path: a command leaves a link where the user will name one later.
			await writeFile(settings, "{}");
			await sandboxed(user, repo, `node -e "require('fs').symlinkSync('${target}','cache')"`);
			await writeFile(settings, JSON.stringify({ sandbox: { writablePaths: ["./cache"] } }));
			const linked = await sandboxed(user, repo, plant);
			const output = [swapped, afterSwap, linked].map((run) => run.stdout + run.stderr).join("\n");
			expect(existsSync(join(target, "planted")), output).toBe(false);
			expect(linked.stdout + linked.stderr).toMatch(/symbolic link inside a writable folder/);
		});

		it("what a command creates in the workspace belongs to the user who runs toolbelt", async () => {
			const repo = await repository(user);
			const run = await sandboxed(user, repo, "mkdir made && echo x > made/file");
			expect(run.code).toBe(0);
			const expected = user === "root" || process.getuid?.() !== 0 ? process.getuid?.() : unprivilegedIdentity.uid;
			for (const path of [join(repo, "made"), join(repo, "made", "file")]) expect(statSync(path).uid).toBe(expected);
		});
	});
});
