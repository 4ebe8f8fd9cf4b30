import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { freePort, isListening } from "../helpers/loopback.js";
import { requiredInCi } from "../helpers/prerequisites.js";

/** A running throwaway sshd on 127.0.0.1 and the ssh options that reach it. */
export interface SshdFixture {
	/** The `ssh://user@127.0.0.1:port` prefix of workspace URLs (append an absolute path). */
	urlPrefix: string;
	/** `--ssh-option` values: identity, known hosts, strict host key checking. */
	sshOptions: string[];
	/** Kills sshd and removes its folder. */
	stop(): Promise<void>;
	/** The sshd process (tests kill it to drop connections). */
	process: ChildProcess;
	/** Starts sshd again on the same port (after `process` was killed). */
	restart(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`sshd exited with code ${child.exitCode}`);
		const open = await isListening(port);
		if (open) return;
		if (Date.now() > deadline) throw new Error(`sshd did not listen on port ${port} within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** The path of sshd, or undefined when it is not installed. */
export function sshdPath(): string | undefined {
	return ["/usr/sbin/sshd", "/usr/local/sbin/sshd"].find((path) => existsSync(path));
}

/** Options of `startSshd`. */
export interface SshdOptions {
	/**
	 * A command sshd is started through (it must end by exec'ing its arguments, so the process is
	 * sshd's), e.g. `unshare --mount …` to give the "remote" side a disk view of its own. Default: none.
	 */
	launchPrefix?: readonly string[];
	/**
	 * Variables sshd sets in every session (its `SetEnv`, which overrides the defaults, PATH
	 * included), e.g. a PATH whose first folder holds a test's stand-in for a command. Default: none.
	 */
	environment?: Readonly<Record<string, string>>;
}

/**
 * A `launchPrefix` giving sshd (and so every "remote" session) a mount namespace of its own in
 * which `from` is bound over `onto`: the same path then holds one thing locally and another on
 * the remote side, as on a second machine. Needs root (or CAP_SYS_ADMIN); startSshd fails otherwise.
 */
export function bindMountPrefix(from: string, onto: string): string[] {
	return [
		"unshare",
		"--mount",
		"--propagation",
		"private",
		"--",
		"sh",
		"-c",
		'mount --bind "$1" "$2" && shift 2 && exec "$@"',
		"sh",
		from,
		onto,
	];
}

/**
 * Starts `sshd -D` with a generated host key and an authorized client key in a temp folder, on a
 * random loopback port. Throws (with the reason) when sshd cannot start; callers skip then.
 */
export async function startSshd(options: SshdOptions = {}): Promise<SshdFixture> {
	const sshd = sshdPath();
	if (!sshd) throw new Error("sshd is not installed (apt-get install openssh-server)");
	const dir = mkdtempSync(join(tmpdir(), "toolbelt-sshd-"));
	const key = (name: string) => {
		execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, name)]);
		return join(dir, name);
	};
	const hostKey = key("host_key");
	const clientKey = key("client_key");
	execFileSync("cp", [`${clientKey}.pub`, join(dir, "authorized_keys")]);
	const port = await freePort();
	mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
	const config = join(dir, "sshd_config");
	writeFileSync(
		config,
		[
			`Port ${port}`,
			"ListenAddress 127.0.0.1",
			`HostKey ${hostKey}`,
			`AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
			`PidFile ${join(dir, "sshd.pid")}`,
			"StrictModes no",
			"UsePAM no",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"PermitRootLogin prohibit-password",
			"MaxSessions 100",
			// bash sources ~/.bashrc for an ssh command when SHLVL < 2; a slow one must not stall tests.
			// One SetEnv line: sshd takes the first one only.
			`SetEnv ${Object.entries({ SHLVL: "1", ...options.environment })
				.map(([name, value]) => JSON.stringify(`${name}=${value}`))
				.join(" ")}`,
			"MaxStartups 100",
			"",
		].join("\n"),
	);
	const hostPublic = execFileSync("cat", [`${hostKey}.pub`], { encoding: "utf8" }).trim();
	writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostPublic}\n`);
	const launch = async () => {
		const [program = sshd, ...prefixArgs] = options.launchPrefix ?? [];
		const args = options.launchPrefix ? [...prefixArgs, sshd] : [];
		const child = spawn(program, [...args, "-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
		let log = "";
		child.stderr?.on("data", (chunk: Buffer) => {
			log += chunk.toString();
		});
		try {
			await waitForPort(port, child, 10_000);
		} catch (error) {
			child.kill("SIGKILL");
			throw new Error(`${(error as Error).message}: ${log.trim()}`);
		}
		return child;
	};
	const fixture: SshdFixture = {
		urlPrefix: `ssh://${userInfo().username}@127.0.0.1:${port}`,
		sshOptions: [
			`IdentityFile=${clientKey}`,
			`UserKnownHostsFile=${join(dir, "known_hosts")}`,
			"StrictHostKeyChecking=yes",
			"IdentitiesOnly=yes",
		],
		process: await launch(),
		restart: async () => {
			fixture.process = await launch();
		},
		stop: async () => {
			fixture.process.kill("SIGKILL");
			rmSync(dir, { recursive: true, force: true });
		},
	};
	return fixture;
}

/** A started sshd, or why none could start. */
export interface SshdAttempt {
	/** The running sshd; undefined when it could not start. */
	sshd?: SshdFixture;
	/** Why it could not start; undefined when it runs. */
	skipReason?: string;
}

/**
 * Starts sshd for a test file's `beforeAll`. Where it cannot start, the tests skip with the
 * reason printed, except under CI, which installs openssh-server: there it is a failure.
 */
export async function startSshdOrSkip(options: SshdOptions = {}): Promise<SshdAttempt> {
	try {
		return { sshd: await startSshd(options) };
	} catch (error) {
		return { skipReason: requiredInCi("sshd (openssh-server)", `sshd could not start: ${(error as Error).message}`) };
	}
}

/** Kills the sshd processes that serve connections (children of the listener): every connection drops. */
export function dropConnections(fixture: SshdFixture): void {
	const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(fixture.process.pid)], { encoding: "utf8" })
		.split("\n")
		.map((line) => Number(line.trim()))
		.filter((pid) => pid > 0);
	for (const pid of children) process.kill(pid, "SIGKILL");
}

/** Resolves true once `check` holds (tried every 20 ms), false after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) return false;
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return true;
}

/** One test file's sshd and the workspaces its tests opened (see `useSshd`). */
export interface SshdForFile {
	/** The running sshd; undefined where it cannot run (outside CI: the tests skip). */
	sshd: SshdFixture | undefined;
	/** Workspaces to close after the file's tests, before sshd stops. */
	opened: RemoteWorkspace[];
}

/**
 * Starts one sshd before a test file's tests (`startSshdOrSkip`) and, after them, closes the
 * workspaces pushed to `opened` and stops it.
 */
export function useSshd(options: SshdOptions = {}): SshdForFile {
	const state: SshdForFile = { sshd: undefined, opened: [] };
	beforeAll(async () => {
		state.sshd = (await startSshdOrSkip(options)).sshd;
	}, 30_000);
	afterAll(async () => {
		await Promise.all(state.opened.map((workspace) => workspace.close()));
		await state.sshd?.stop();
	});
	return state;
}

/** A workspace at `folder` on the file's sshd, closed with the others (`closeOpened`, or after the file). */
export function openOverSsh(state: SshdForFile, folder: string): RemoteWorkspace {
	if (!state.sshd) throw new Error("sshd is not running here");
	const workspace = createWorkspaceFromUrl(`${state.sshd.urlPrefix}${folder}`, { sshOptions: state.sshd.sshOptions });
	state.opened.push(workspace);
	return workspace;
}

/** Closes the workspaces the file's tests opened so far (after each test, where a test needs them gone). */
export async function closeOpened(state: SshdForFile): Promise<void> {
	await Promise.all(state.opened.splice(0).map((workspace) => workspace.close()));
}
