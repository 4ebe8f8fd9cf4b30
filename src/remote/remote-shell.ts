import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { ShellExecRequest, ShellExecResult, ShellOperations } from "../tools/index.js";
import { type RemoteRunResult, runRemote } from "./run-remote.js";
import type { ScriptChannel } from "./script-channel.js";
import { ShellSession } from "./shell-session.js";
import type { RemoteTransport } from "./transport.js";

/**
 * Starts the command in its own session (its process group id is its pid, sent back on stderr),
 * with stdout and stderr merged in arrival order and stdin from the client (empty unless the
 * command itself arrives there), and reports its exit status on stderr.
 */
const execScript = String.raw`
cd -- "$1" 2>/dev/null || { printf 'TOOLBELT_NOCWD\n' >&2; exit 96; }
# $2 variables follow, NAME=value each: exported by the shell itself (no env process to start).
n=$2; shift 2
while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done
exec 3<&0
if command -v setsid >/dev/null 2>&1; then setsid "$@" <&3 2>&1 & else "$@" <&3 2>&1 & fi
pid=$!
exec 3<&-
printf 'TOOLBELT_PID %s\n' "$pid" >&2
wait "$pid"; code=$?
printf 'TOOLBELT_EXIT %s\n' "$code" >&2
`;

/** Kills a remote process group (and the process itself, where `setsid` was missing). */
const killScript = `kill -KILL "-$1" 2>/dev/null; kill -KILL "$1" 2>/dev/null; exit 0`; // dash's kill takes no "--"

/** How long the output may trail the exit report before background jobs are assumed to hold it. */
const OUTPUT_GRACE_MS = 300;

/** Variables worth sending: those toolbelt or the tool's `env` option set, not this machine's own. */
function forwardedEnvironment(env: Record<string, string>): string[] {
	return Object.entries(env)
		.filter(([name, value]) => process.env[name] !== value && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
		.map(([name, value]) => `${name}=${value}`);
}

/** Reads the control lines (`TOOLBELT_PID n`, `TOOLBELT_EXIT n`) from stderr; other text is output. */
function watchControl(
	child: ChildProcessWithoutNullStreams,
	onOutput: (chunk: Buffer) => void,
	onControl: (kind: "PID" | "EXIT" | "NOCWD", value: number) => void,
): () => string {
	let pending = "";
	let other = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		pending += text;
		for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
			const line = pending.slice(0, newline);
			pending = pending.slice(newline + 1);
			const control = /^TOOLBELT_(PID|EXIT|NOCWD) ?(\d*)$/.exec(line);
			if (control) onControl(control[1] as "PID" | "EXIT" | "NOCWD", Number(control[2]));
			else {
				other += `${line}\n`;
				onOutput(Buffer.from(`${line}\n`));
			}
		}
	});
	return () => other + pending;
}

/** Live remote command runs, so `close` can end what background jobs hold open. */
type Lingering = Set<{ child: ChildProcessWithoutNullStreams; pid: number | undefined }>;

/** `ShellOperations` with a way to stop what is still running remotely. */
export interface RemoteShellOperations extends ShellOperations {
	/** Kills the remote process groups of commands whose background jobs still run, and their clients. */
	close(): Promise<void>;
}

async function execRemote(
	transport: RemoteTransport,
	lingering: Lingering,
	request: ShellExecRequest,
	session: ShellSession | undefined,
): Promise<ShellExecResult> {
	const environment = forwardedEnvironment(request.env);
	const args = [request.cwd, String(environment.length), ...environment, request.file, ...request.args];
	const child = session?.alive ? session.run(args) : await transport.spawn(execScript, args);
	const entry: { child: ChildProcessWithoutNullStreams; pid: number | undefined } = { child, pid: undefined };
	let exitStatus: number | undefined;
	let noCwd = false;
	let killedBy: "timeout" | "abort" | undefined;
	let finish: () => void = () => {};
	const finished = new Promise<void>((resolve) => {
		finish = resolve;
	});
	let grace: NodeJS.Timeout | undefined;
	const stderrText = watchControl(
		child,
		(chunk) => void request.onData(chunk),
		(kind, value) => {
			if (kind === "PID") entry.pid = value;
			else if (kind === "NOCWD") noCwd = true;
			else {
				exitStatus = value;
				grace = setTimeout(finish, OUTPUT_GRACE_MS);
			}
		},
	);
	child.stdout.on("data", (chunk: Buffer) => {
		const wait = request.onData(chunk);
		if (wait) {
			child.stdout.pause();
			void wait.then(() => child.stdout.resume());
		}
	});
	child.stdin.on("error", () => {});
	child.stdin.end(request.stdin ?? undefined);
	let exitCode: number | null = null;
	child.once("close", (code) => {
		exitCode = code;
		finish();
	});
	const kill = (reason: "timeout" | "abort") => {
		if (killedBy || exitStatus !== undefined) return;
		killedBy = reason;
		const local = setTimeout(() => child.kill("SIGKILL"), 5000);
		const stop = entry.pid ? runRemote(transport, killScript, [String(entry.pid)]) : Promise.resolve();
		void stop.catch(() => child.kill("SIGKILL")).finally(() => clearTimeout(local));
		if (!entry.pid) child.kill("SIGKILL");
	};
	const timer = setTimeout(() => kill("timeout"), request.timeoutMs);
	const onAbort = () => kill("abort");
	request.signal?.addEventListener("abort", onAbort, { once: true });
	if (request.signal?.aborted) onAbort();
	await finished;
	clearTimeout(timer);
	clearTimeout(grace);
	request.signal?.removeEventListener("abort", onAbort);
	if (exitStatus === undefined && !killedBy) {
		const failure = transport.failure(exitCode, stderrText());
		if (failure) throw failure;
		if (noCwd)
			throw Object.assign(new Error(`The working directory ${request.cwd} does not exist on ${transport.label}.`), {
				code: "ENOENT",
			});
	}
	if (child.exitCode === null && child.signalCode === null) {
		// Background jobs keep the channel open: let them run until the workspace closes.
		lingering.add(entry);
		child.once("close", () => lingering.delete(entry));
		child.stdout.removeAllListeners("data");
		child.stdout.resume();
	}
	const signaled = killedBy !== undefined || (exitStatus !== undefined && exitStatus > 128 && exitStatus < 160);
	return {
		exitCode: killedBy ? null : signaled ? null : (exitStatus ?? exitCode),
		signal: killedBy ? "SIGKILL" : signaled ? signalName((exitStatus ?? 0) - 128) : null,
		timedOut: killedBy === "timeout",
		aborted: killedBy === "abort",
		// Remote pids mean nothing on this machine: the local registry must never signal them.
		backgroundPids: [],
	};
}

function signalName(number: number): string {
	const names: Record<number, string> = {
		1: "SIGHUP",
		2: "SIGINT",
		6: "SIGABRT",
		9: "SIGKILL",
		13: "SIGPIPE",
		15: "SIGTERM",
	};
	return names[number] ?? `SIG${number}`;
}

/**
 * `ShellOperations` over a remote transport: the command runs in its own session on the remote
 * side, so a timeout or an abort kills the remote process group (a second remote call), not just
 * the local client; stdin is empty; output streams back with backpressure. The small checks
 * (is it a folder, where is the program) ride on `channel` when given, instead of a process each.
 */
export function createRemoteShellOperations(
	transport: RemoteTransport,
	channel?: ScriptChannel,
): RemoteShellOperations {
	const lingering: Lingering = new Set();
	const check = (script: string, args: string[]): Promise<RemoteRunResult> =>
		channel ? channel.run(script, args) : runRemote(transport, script, args);
	// A shell tool asks isDirectory, then findExecutable, then runs: the first question opens the
	// session the command will run in, and the questions are answered there.
	let session: Promise<ShellSession | undefined> | undefined;
	const sessionNow = async (): Promise<ShellSession | undefined> => {
		const current = await session;
		if (current?.alive) return current;
		session = ShellSession.open(transport, execScript).catch(() => undefined);
		return session;
	};
	const ask = async (question: "dir" | "which", subject: string, fallback: () => Promise<string>) => {
		const current = await sessionNow();
		return current ? current.ask(question, subject).catch(fallback) : fallback();
	};
	// Where a shell lives does not change while a workspace is open: each is looked up once.
	const executables = new Map<string, Promise<string | undefined>>();
	return {
		exec: async (request) => {
			const ready = await session;
			session = undefined;
			return execRemote(transport, lingering, request, ready);
		},
		isDirectory: async (path) =>
			(await ask("dir", path, async () => ((await check(`[ -d "$1" ]`, [path])).exitCode === 0 ? "yes" : ""))) ===
			"yes",
		findExecutable: (nameOrPath) => {
			const known = executables.get(nameOrPath);
			if (known) return known;
			const script = `case $1 in */*) [ -x "$1" ] && [ ! -d "$1" ] && printf '%s' "$1";; *) unset -f "$1" 2>/dev/null; command -v -- "$1";; esac`;
			const looking = ask("which", nameOrPath, async () => (await check(script, [nameOrPath])).stdout.toString("utf8"))
				.then((answer) => answer.trim())
				.then((found) => {
					// Only a found program is kept: one installed later is then found on the next call.
					if (!found.startsWith("/")) executables.delete(nameOrPath);
					return found.startsWith("/") ? found : undefined;
				});
			executables.set(nameOrPath, looking);
			looking.catch(() => executables.delete(nameOrPath));
			return looking;
		},
		close: async () => {
			const spare = await session;
			session = undefined;
			spare?.close();
			const entries = [...lingering];
			lingering.clear();
			await Promise.all(
				entries.map(async ({ child, pid }) => {
					if (pid) await runRemote(transport, killScript, [String(pid)]).catch(() => {});
					child.kill("SIGKILL");
				}),
			);
		},
	};
}
