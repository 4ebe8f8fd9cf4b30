import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { signalChild } from "../../local/index.js";
import { sessionScript } from "../transport/session-script.js";
import { shellQuoteOneLine } from "../transport/shell-quote.js";
import type { RemoteTransport } from "../transport/transport.js";
import type { KeptOutputReader } from "./kept-output.js";

/** What a run attached to a session receives (see `ShellSession.attach`). */
export interface SessionRunHandlers {
	/** A chunk of the remote stdout; a returned promise pauses reading until it settles. */
	onStdout(chunk: Buffer): void | Promise<void>;
	/** One line of the remote stderr (control lines and anything else), without its newline. */
	onLine(line: string): void;
	/** The session's process ended. */
	onClose(code: number | null): void;
}

/** How long `close` (and toolbelt's exit) waits for the remote side to clean up and end. */
export const CLOSE_WAIT_MS = 5000;

/** How long a wider frame's last bytes may trail the session's report that it sent them. */
const REFRAME_GRACE_MS = 1000;

/** Most stderr text kept for a failure message. */
const STDERR_KEPT = 16 * 1024;

/**
 * One remote shell (see `sessionScript`): the checks before a command are answered inside it (no
 * round trip through another process), and the command then runs in it, so a bash call costs one
 * connection setup, as `ssh host command` does — and none once the session served a call before.
 * The session owns its kept output files and left-over background jobs: when its stdin ends it
 * kills the jobs, and after `close`'s `bye` it removes the files too, so `close` costs no further
 * remote command. A session that merely lost its connection leaves its files (their paths were
 * named to the model) for the workspace to remove (see `KeptFiles`).
 */
export class ShellSession {
	private readonly answers: { resolve(answer: string): void; reject(error: Error): void }[] = [];
	private pending = "";
	private stderrText = "";
	private handlers: SessionRunHandlers | undefined;
	/** Set once the process ended (a run attached after that learns it at once). */
	private ended: { code: number | null } | undefined;
	private readonly closed: Promise<number | null>;
	private cleaned: () => void = () => {};
	/** Settles when the remote side said it cleaned up (before the channel's teardown). */
	private readonly clean = new Promise<void>((resolve) => {
		this.cleaned = resolve;
	});
	/** True while a command runs in it. */
	busy = false;
	/** True until a command ran in it (only such a session can take a `once` run). */
	fresh = true;
	/** True once a run left something for the session to clean up (a kept file, background jobs). */
	holdsLeftovers = false;
	/** True once the remote side said it removed its kept files (after `close`'s `bye`). */
	removedItsFiles = false;

	private constructor(readonly child: ChildProcessWithoutNullStreams) {
		child.stdin.on("error", () => {});
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (text: string) => this.onStderr(text));
		child.stdout.on("data", (chunk: Buffer) => {
			const wait = this.handlers?.onStdout(chunk);
			if (wait && typeof wait.then === "function") {
				child.stdout.pause();
				void wait.then(() => child.stdout.resume());
			}
		});
		this.closed = new Promise((resolve) => {
			child.once("close", (code) => {
				this.ended = { code };
				const error = new Error(`The remote shell session ended (exit ${code}).`);
				for (const answer of this.answers.splice(0)) answer.reject(error);
				this.handlers?.onClose(code);
				resolve(code);
			});
			child.once("error", () => {});
		});
	}

	private onStderr(text: string): void {
		if (this.stderrText.length < STDERR_KEPT) this.stderrText += text;
		this.pending += text;
		for (let newline = this.pending.indexOf("\n"); newline !== -1; newline = this.pending.indexOf("\n")) {
			const line = this.pending.slice(0, newline);
			this.pending = this.pending.slice(newline + 1);
			// Answers come in the order the questions were written, before any run's lines.
			if (line.startsWith("TOOLBELT_ANSWER")) this.answers.shift()?.resolve(line.slice("TOOLBELT_ANSWER ".length));
			else if (line.startsWith("TOOLBELT_CLEAN")) {
				this.removedItsFiles = line === "TOOLBELT_CLEAN yes";
				this.cleaned();
			} else this.handlers?.onLine(line);
		}
	}

	/**
	 * Opens a session on the transport (connecting first when needed). With `sweep`, the remote side
	 * starts, in the background after its first run, the removal of day-old files that earlier
	 * sessions left (`toolbeltSweep`).
	 */
	static async open(transport: RemoteTransport, options: { sweep?: boolean } = {}): Promise<ShellSession> {
		const token = randomBytes(12).toString("hex");
		return new ShellSession(await transport.spawn(sessionScript, options.sweep ? [token, "sweep"] : [token]));
	}

	/** Set when a wider frame did not come whole: the session takes nothing more. */
	private spent = false;

	/** True once the session's process ended (whatever it left is no longer its own to remove). */
	get exited(): boolean {
		return this.ended !== undefined || this.child.exitCode !== null || this.child.signalCode !== null;
	}

	/**
	 * True while the remote side can still get a line without an answer (`drop`, `bye`): also in a
	 * spent session (see `reframe`), whose late bytes no such line is mistaken for.
	 */
	get readsLines(): boolean {
		return !this.exited && !this.child.stdin.writableEnded;
	}

	/** True while the session can still take questions or a command. */
	get alive(): boolean {
		if (this.spent) return false;
		return this.child.exitCode === null && this.child.signalCode === null && !this.child.stdin.writableEnded;
	}

	/** What the session printed on stderr so far (for a failure message), with its last partial line. */
	errorText(): string {
		return this.stderrText;
	}

	/** Asks `dir PATH` or `which NAME`; resolves with the answer line (empty for no). */
	ask(question: "dir" | "which", subject: string): Promise<string> {
		if (!this.alive) return Promise.reject(new Error("The remote shell session is gone."));
		return new Promise<string>((resolve, reject) => {
			this.answers.push({ resolve, reject });
			this.child.stdin.write(`${[question, subject].map(shellQuoteOneLine).join(" ")}\n`);
		});
	}

	/**
	 * Runs `toolbeltRun` with `args` in the session, its output and control lines going to
	 * `handlers` until `detach`. `session` runs leave the session usable afterwards; a `once` run
	 * (only on a fresh session) takes the rest of stdin for the command and ends the session.
	 */
	run(mode: "session" | "once", args: readonly string[], handlers: SessionRunHandlers): void {
		this.busy = true;
		this.fresh = false;
		this.handlers = handlers;
		// Died between being taken and now: the run ends at once instead of waiting for a close that came.
		const ended = this.ended;
		if (ended) return void queueMicrotask(() => handlers.onClose(ended.code));
		this.child.stdin.write(`${[mode === "once" ? "once" : "run", ...args].map(shellQuoteOneLine).join(" ")}\n`);
	}

	/** Ends a run's hold on the session's output (its last lines came). */
	detach(): void {
		this.handlers = undefined;
		this.busy = false;
		this.stderrText = "";
		if (this.child.stdout.isPaused()) this.child.stdout.resume();
	}

	/**
	 * Asks for a kept file's tail again, `length` bytes before `size` (the totals of the run's final
	 * frame), as a final frame into `reader`. Resolves once it came, or when the session said it
	 * sent all it could (a file that went away gives a shorter frame: the reader then has none).
	 */
	async reframe(path: string, size: number, newlines: number, length: number, reader: KeptOutputReader): Promise<void> {
		if (!this.alive) return;
		let done: () => void = () => {};
		const finished = new Promise<void>((resolve) => {
			done = resolve;
		});
		let grace: NodeJS.Timeout | undefined;
		this.handlers = {
			onStdout: (chunk) => {
				reader.write(chunk);
				if (reader.final) done();
			},
			// stderr may overtake the last bytes on stdout: they get a moment.
			onLine: (line) => {
				if (line === "TOOLBELT_FRAMED") grace ??= setTimeout(done, REFRAME_GRACE_MS);
			},
			onClose: () => done(),
		};
		this.child.stdin.write(
			`${["frame", path, String(size), String(length), String(newlines)].map(shellQuoteOneLine).join(" ")}\n`,
		);
		await finished;
		clearTimeout(grace);
		this.handlers = undefined;
		// Bytes still on their way would be read as the next run's: no further run goes here (the
		// pool ends it, and its files, with the workspace).
		if (!reader.final) this.spent = true;
	}

	/**
	 * Removes kept files, of this session or of another one of the workspace, before anything
	 * written after (no answer is awaited). False when the session can take no more lines.
	 */
	drop(paths: readonly string[]): boolean {
		if (!this.readsLines) return false;
		if (paths.length > 0) this.child.stdin.write(`${["drop", ...paths].map(shellQuoteOneLine).join(" ")}\n`);
		return true;
	}

	/**
	 * Ends the session in order (`bye`): the remote side then kills what its runs left running and
	 * removes their files. With `wait`, resolves once it said so or ended (at most `CLOSE_WAIT_MS`,
	 * then the client is killed).
	 */
	async close(wait = true): Promise<void> {
		if (!this.child.stdin.writableEnded) this.child.stdin.end("bye\n");
		if (!wait) return;
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<void>((resolve) => {
			timer = setTimeout(() => {
				signalChild(this.child, "SIGKILL");
				resolve();
			}, CLOSE_WAIT_MS);
		});
		await Promise.race([this.clean, this.closed, late]);
		clearTimeout(timer);
	}
}
