import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atProcessEnd } from "../../local/index.js";
import { clientProgram } from "./client-program.js";
import { shCommandLine } from "./shell-quote.js";
import { RemoteConnectionError, type RemoteTransport, stderrSummary } from "./transport.js";

/** Where and how to reach an SSH host. */
export interface SshTransportOptions {
	/** Host name or alias from `~/.ssh/config`. */
	host: string;
	/** Login name. Default: what `ssh` chooses (config, then the local user). */
	user?: string;
	/** Port. Default: what `ssh` chooses (config, then 22). */
	port?: number;
	/**
	 * Extra `-o` options, each `Key=Value` (e.g. `IdentityFile=…`, `UserKnownHostsFile=…`). A
	 * `ControlPath` without `%` tokens shares that master (left running on close). Default: none.
	 */
	sshOptions?: readonly string[];
	/**
	 * The `ssh` client, a path taken as given. Default: `ssh` where no sandboxed command can have
	 * planted one (see `clientProgram`).
	 */
	sshPath?: string;
	/** Seconds to wait for the connection to be set up. Default: 15. */
	connectTimeoutSeconds?: number;
}

/** `ssh` exits with 255 when the connection (not the remote command) failed. */
const SSH_CONNECTION_FAILED = 255;

function connectionMessage(label: string, stderr: string): string {
	const said = stderrSummary(stderr) || "ssh gave no reason";
	if (/Permission denied|Too many authentication failures|no more authentication methods/i.test(stderr)) {
		return `The SSH server at ${label} refused the login (${said}). Check the user name, the key (IdentityFile) and ssh-agent; toolbelt runs ssh with BatchMode=yes, so it cannot ask for a password.`;
	}
	if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(stderr)) {
		return `The host key of ${label} could not be verified (${said}). Add the host to known_hosts (ssh once by hand) or pass --ssh-option UserKnownHostsFile=….`;
	}
	return `Cannot reach the SSH workspace ${label} (${said}). Check that the host is up and reachable, then retry; the next call connects again.`;
}

/** The arguments every ssh run of the transport starts with: its master's socket, no prompts, the user's options. */
function sshArguments(options: SshTransportOptions, controlPath: string): string[] {
	return [
		"-o",
		`ControlPath=${controlPath}`,
		"-o",
		"BatchMode=yes",
		"-o",
		`ConnectTimeout=${options.connectTimeoutSeconds ?? 15}`,
		...(options.sshOptions ?? [])
			.filter((option) => !/^ControlPath[= ]/i.test(option))
			.flatMap((option) => ["-o", option]),
		...(options.port ? ["-p", String(options.port)] : []),
		...(options.user ? ["-l", options.user] : []),
	];
}

/**
 * The SSH transport: one multiplexing master connection (`ControlMaster`, its socket in a private
 * temp folder) that every call rides on, through the system `ssh` client — so the user's
 * `~/.ssh/config`, keys, agent, `ProxyJump` and known hosts apply. A lost master is started again
 * on the next call.
 */
export function createSshTransport(options: SshTransportOptions): RemoteTransport {
	const sshProgram = clientProgram(options.sshPath ?? "ssh");
	const label = `ssh://${options.user ? `${options.user}@` : ""}${options.host}${options.port ? `:${options.port}` : ""}`;
	let controlDir: string | undefined;
	let connecting: Promise<void> | undefined;
	let closed = false;
	/** The ssh that started the master: it stops it too (no look-up at exit). */
	let startedBy: string | undefined;

	const privateDir = () => {
		// mkdtemp makes it 0700: nobody else can reach the master through its socket.
		controlDir ??= mkdtempSync(join(tmpdir(), "toolbelt-ssh-"));
		return controlDir;
	};
	// A ControlPath of the user's own (without % tokens) is shared: their master serves toolbelt too,
	// and toolbelt leaves it running when it closes.
	const givenControlPath = (options.sshOptions ?? [])
		.map((option) => /^ControlPath[= ](.+)$/i.exec(option)?.[1])
		.find((path) => path !== undefined && !path.includes("%"));
	const controlPath = () => givenControlPath ?? join(privateDir(), "master");
	const baseArgs = (): string[] => sshArguments(options, controlPath());

	async function startMaster(): Promise<void> {
		// stderr goes to a file: the backgrounded master must not hold a pipe of ours open.
		const logPath = join(privateDir(), "connect.log");
		const log = openSync(logPath, "w");
		try {
			startedBy = sshProgram();
			const child = spawn(
				startedBy,
				[...baseArgs(), "-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-f", "-N", "-T", options.host],
				{ stdio: ["ignore", "ignore", log] },
			);
			const code = await new Promise<number | null>((resolve, reject) => {
				child.once("error", reject);
				child.once("exit", resolve);
			});
			if (code !== 0 || !existsSync(controlPath())) {
				throw new RemoteConnectionError(connectionMessage(label, readFileSync(logPath, "utf8")));
			}
		} finally {
			closeSync(log);
		}
	}

	async function ensureMaster(): Promise<void> {
		if (closed) throw new RemoteConnectionError(`The SSH workspace ${label} was closed.`);
		if (existsSync(controlPath())) return;
		connecting ??= startMaster().finally(() => {
			connecting = undefined;
		});
		await connecting;
	}

	function stopMaster(): void {
		if (givenControlPath || !controlDir || !startedBy || !existsSync(controlPath())) return;
		spawnSync(startedBy, [...baseArgs(), "-O", "exit", options.host], { stdio: "ignore", timeout: 5000 });
		rmSync(controlPath(), { force: true });
	}

	const onExit = () => {
		stopMaster();
		if (controlDir) rmSync(controlDir, { recursive: true, force: true });
	};
	// Also at a SIGTERM that ends toolbelt: a master with ControlPersist would otherwise outlive it.
	const cancelAtEnd = atProcessEnd(onExit);

	return {
		label,
		async spawn(script, args): Promise<ChildProcessWithoutNullStreams> {
			await ensureMaster();
			return spawn(
				sshProgram(),
				[...baseArgs(), "-o", "ControlMaster=no", "-T", options.host, shCommandLine(script, args)],
				{
					stdio: ["pipe", "pipe", "pipe"],
				},
			);
		},
		failure(exitCode, stderr) {
			if (exitCode !== SSH_CONNECTION_FAILED) return undefined;
			// The master may be dead with its socket left behind: forget it, so the next call reconnects.
			stopMaster();
			return new RemoteConnectionError(connectionMessage(label, stderr));
		},
		async close() {
			if (closed) return;
			closed = true;
			cancelAtEnd();
			onExit();
		},
	};
}
