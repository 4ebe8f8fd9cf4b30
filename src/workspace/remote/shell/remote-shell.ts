import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { atProcessEnd, signalChild } from "../../local/index.js";
import type {
	KeptOutputOptions,
	KeptOutputResult,
	ShellExecRequest,
	ShellExecResult,
	ShellOperations,
} from "../../shell/exec-types.js";
import { keepBytes, needsWiderFrame, rawFits } from "../transport/frame-size.js";
import { type RemoteRunResult, runRemote } from "../transport/run-remote.js";
import type { ScriptChannel } from "../transport/script-channel.js";
import { SessionPool } from "../transport/session-pool.js";
import type { RemoteTransport } from "../transport/transport.js";
import { type KeptFile, KeptFiles } from "./kept-files.js";
import { KeptOutputReader, keptOutputOf } from "./kept-output.js";
import { killScript, type OutputMode, runInSession } from "./remote-exec.js";
import type { ShellSession } from "./shell-session.js";

/** What a `once` run left: a client whose remote process group may still run. */
interface Lingering {
	child: ChildProcessWithoutNullStreams;
	pid: number | undefined;
}

/** `ShellOperations` with a way to stop what is still running remotely. */
export interface RemoteShellOperations extends ShellOperations {
	/** Always present remotely: the output stays in a file on the remote side. */
	execKeepingOutput: NonNullable<ShellOperations["execKeepingOutput"]>;
	/**
	 * Ends the sessions (each kills the background jobs its commands left and removes their kept
	 * files on the remote side), removes the kept files no session will (of `once` runs, of
	 * sessions that lost their connection), kills what `once` runs left, and waits for all of it.
	 */
	close(): Promise<void>;
}

/**
 * Programs shell tools looked up remotely in this process, the bash tool's first choice to begin
 * with: a workspace's first check asks for them at once, in the same round trip, so the lookup the
 * tool makes next is already answered (at most a few are kept).
 */
const likelyExecutables = new Set<string>(["/bin/bash"]);
const MOST_LIKELY_EXECUTABLES = 4;

/** Background jobs of a streamed run keep its channel open: they run until the workspace closes. */
function keepIfRunning(lingering: Set<Lingering>, session: ShellSession, pid: number | undefined): void {
	const { child } = session;
	if (child.exitCode !== null || child.signalCode !== null) return;
	const entry = { child, pid };
	lingering.add(entry);
	child.once("close", () => lingering.delete(entry));
}

/**
 * The final frame the view is rendered from: the run's narrow one, or the full window read again
 * from the kept file when the narrow one might render differently (see `needsWiderFrame`).
 */
async function widened(
	session: ShellSession,
	final: KeptOutputReader["final"],
	path: string | undefined,
	options: KeptOutputOptions,
): Promise<KeptOutputReader["final"]> {
	const keep = keepBytes(options);
	if (!final || !path || !needsWiderFrame(final.bytes, final.size, keep, options.budget)) return final;
	const length = Math.min(keep, final.size);
	const reader = new KeptOutputReader(undefined);
	await session.reframe(path, final.size, final.newlines, length, reader);
	return reader.final?.bytes.length === length ? reader.final : final;
}

/** How a question is asked: in a session, else through `fallback`. */
type Ask = (question: "dir" | "which", subject: string, fallback: () => Promise<string>) => Promise<string>;

/**
 * `findExecutable` over `ask`: where a shell lives does not change while a workspace is open, so
 * each found program is looked up once (one not found is asked again next time).
 */
function executableLookup(
	ask: Ask,
	check: (script: string, args: string[]) => Promise<RemoteRunResult>,
): (nameOrPath: string) => Promise<string | undefined> {
	const executables = new Map<string, Promise<string | undefined>>();
	return (nameOrPath) => {
		const known = executables.get(nameOrPath);
		if (known) return known;
		if (likelyExecutables.size < MOST_LIKELY_EXECUTABLES) likelyExecutables.add(nameOrPath);
		const script = `case $1 in */*) [ -x "$1" ] && [ ! -d "$1" ] && printf '%s' "$1";; *) unset -f "$1" 2>/dev/null; command -v -- "$1";; esac`;
		const looking = ask("which", nameOrPath, async () => (await check(script, [nameOrPath])).stdout.toString("utf8"))
			.then((answer) => answer.trim())
			.then((found) => {
				if (!found.startsWith("/")) executables.delete(nameOrPath);
				return found.startsWith("/") ? found : undefined;
			});
		executables.set(nameOrPath, looking);
		looking.catch(() => executables.delete(nameOrPath));
		return looking;
	};
}

/** Removes kept files through a session's stdin when one is open (no round trip), else by one remote command. */
function removeKept(
	paths: readonly string[],
	via: ShellSession | undefined,
	pool: SessionPool,
	check: (script: string, args: string[]) => Promise<RemoteRunResult>,
): Promise<unknown> {
	if (paths.length === 0 || via?.drop(paths) || pool.idleSession()?.drop(paths)) return Promise.resolve();
	const removing = () => check(`rm -f -- "$@"`, [...paths]);
	// Once more when the channel's connection had dropped unnoticed: the retry connects again.
	return removing()
		.catch(removing)
		.catch(() => {});
}

/**
 * `ShellOperations` over a remote transport: each command runs in its own process group on the
 * remote side, so a timeout or an abort kills the remote tree (a second remote call), not just the
 * local client; stdin is empty, except for a command given input (`stdin`) and a background job
 * (`openStdin`): the channel's stdin is then the command's, kept open for a job until it ends.
 * Commands run in shell sessions kept open between calls (`SessionPool`), whose checks (is it a
 * folder, where is the program) are answered there; a command with input on stdin, or a streamed
 * one, gets a session of its own. The checks fall back to `channel` (or a process each) when no
 * session can be opened.
 */
export function createRemoteShellOperations(
	transport: RemoteTransport,
	channel?: ScriptChannel,
): RemoteShellOperations {
	const pool = new SessionPool(transport);
	const lingering = new Set<Lingering>();
	const keptFiles = new KeptFiles();
	const check = (script: string, args: string[]): Promise<RemoteRunResult> =>
		channel ? channel.run(script, args) : runRemote(transport, script, args);
	const remove = (paths: readonly string[], via: ShellSession | undefined) => removeKept(paths, via, pool, check);
	// The CLI leaves its workspace to toolbelt's exit: the sessions still end in order then, their
	// `bye` written and their clean-up waited for ahead of the transport's own exit handler that
	// stops the connection (see `endNow`).
	const endAtExit = () => pool.endNow(keptFiles.orphans());
	const cancelAtEnd = atProcessEnd(endAtExit, { first: true });
	const ask: Ask = async (question, subject, fallback) => {
		const session = await pool.forQuestions();
		return session ? session.ask(question, subject).catch(fallback) : fallback();
	};
	const findExecutable = executableLookup(ask, check);
	let prefetched = false;

	const execKept = async (
		request: Omit<ShellExecRequest, "onData">,
		options: KeptOutputOptions,
	): Promise<KeptOutputResult> => {
		const { budget } = options;
		// Only the final frame comes this way: progress is read by a watcher of its own (`progress-watch.ts`).
		const reader = new KeptOutputReader(undefined, budget);
		const mode: OutputMode = { kind: "kept", options, reader };
		// A command arriving on stdin takes the session's stdin: it gets a session of its own.
		const runMode = request.stdin === undefined ? "session" : "once";
		const session = await pool.take(runMode === "once");
		const giveBack = () => (runMode === "session" ? pool.release(session) : pool.retire(session));
		const keep = (file: KeptFile) => void remove(keptFiles.add(file), session);
		const outcome = await runInSession(transport, session, runMode, request, mode).catch((error: unknown) => {
			// The connection dropped mid-run: what the file holds is nobody's, it goes at close.
			if (mode.path) keep({ path: mode.path, bytes: 0, owner: undefined, live: false });
			giveBack();
			throw error;
		});
		const final = runMode === "session" ? await widened(session, reader.final, mode.path, options) : reader.final;
		const output = keptOutputOf({ final, budget, path: mode.path, host: transport.label, important: reader.important });
		const unneeded = mode.path && !output.fullOutputPath && !(final && rawFits(final, budget));
		// Not removed remotely (the raw output did not fit, the sanitized one does): removed now.
		if (unneeded && mode.path) await remove([mode.path], session);
		if (output.fullOutputPath) {
			const owner = runMode === "session" ? session : undefined;
			keep({ path: output.fullOutputPath, bytes: final?.size ?? 0, owner, live: !!mode.alive });
		}
		if (runMode === "session") {
			if (output.fullOutputPath || mode.alive) session.holdsLeftovers = true;
		} else if (mode.alive) lingering.add({ child: session.child, pid: outcome.pid });
		// After holdsLeftovers is known: a spare session that holds none may be ended.
		giveBack();
		return { result: outcome.result, output };
	};

	return {
		exec: async (request): Promise<ShellExecResult> => {
			const session = await pool.take(true);
			pool.retire(session);
			const outcome = await runInSession(transport, session, "once", request, {
				kind: "stream",
				onData: request.onData,
			});
			keepIfRunning(lingering, session, outcome.pid);
			return outcome.result;
		},
		execKeepingOutput: execKept,
		isDirectory: async (path) => {
			const answer = ask("dir", path, async () => ((await check(`[ -d "$1" ]`, [path])).exitCode === 0 ? "yes" : ""));
			if (!prefetched) {
				prefetched = true;
				for (const name of likelyExecutables) void findExecutable(name).catch(() => {});
			}
			return (await answer) === "yes";
		},
		findExecutable,
		close: async () => {
			cancelAtEnd();
			const entries = [...lingering];
			lingering.clear();
			// Dropped through an open session before its `bye`: no round trip of their own.
			const orphans = keptFiles.orphans();
			const via = pool.idleSession();
			if (via) via.drop(orphans);
			await Promise.all([
				pool.close().then(() => remove(keptFiles.leftAfterClose(via ? orphans : [], via), undefined)),
				...entries.map(async ({ child, pid }) => {
					if (pid) await runRemote(transport, killScript, [String(pid)]).catch(() => {});
					signalChild(child, "SIGKILL");
				}),
			]);
		},
	};
}
