import { waitForEndsSync } from "../../local/index.js";
import { CLOSE_WAIT_MS, ShellSession } from "../shell/shell-session.js";
import type { RemoteTransport } from "./transport.js";

/** Idle sessions kept beyond those that hold leftovers (a kept file, background jobs). */
const MAX_SPARE = 2;

/**
 * The shell sessions of one workspace: a command runs in an idle one (the one its checks were
 * answered in), which takes the next command after it, so only the first call pays a connection
 * setup. Concurrent calls open more; idle ones beyond a few are ended unless they hold leftovers.
 */
export class SessionPool {
	private readonly idle: ShellSession[] = [];
	private readonly all = new Set<ShellSession>();
	private opening: Promise<ShellSession | undefined> | undefined;
	/** True once a session was asked to sweep what earlier ones left (once per workspace is enough). */
	private swept = false;

	constructor(private readonly transport: RemoteTransport) {}

	private async openSession(): Promise<ShellSession> {
		const sweep = !this.swept;
		this.swept = true;
		const session = await ShellSession.open(this.transport, { sweep }).catch((error: unknown) => {
			if (sweep) this.swept = false;
			throw error;
		});
		this.all.add(session);
		session.child.once("close", () => {
			this.all.delete(session);
			const index = this.idle.indexOf(session);
			if (index !== -1) this.idle.splice(index, 1);
		});
		return session;
	}

	private firstIdle(fresh: boolean): ShellSession | undefined {
		return this.idle.find((session) => session.alive && (!fresh || session.fresh));
	}

	/** An idle session for questions (opened when there is none); undefined when it cannot be opened. */
	async forQuestions(): Promise<ShellSession | undefined> {
		await this.opening;
		const ready = this.firstIdle(false);
		if (ready) return ready;
		this.opening ??= this.openSession()
			.then((session) => {
				this.idle.push(session);
				return session;
			})
			.catch(() => undefined)
			.finally(() => {
				this.opening = undefined;
			});
		return this.opening;
	}

	/**
	 * Takes a session for a command: an idle one (a `fresh` one, never used by a command, when
	 * asked), else a new one. Rejects when the transport cannot connect.
	 */
	async take(fresh: boolean): Promise<ShellSession> {
		await this.opening;
		const ready = this.firstIdle(fresh);
		if (ready) {
			this.idle.splice(this.idle.indexOf(ready), 1);
			return ready;
		}
		return this.openSession();
	}

	/** Gives a session back after a `session` run; it serves the next command (or ends, when spare). */
	release(session: ShellSession): void {
		if (!session.alive || !this.all.has(session)) return;
		if (!session.holdsLeftovers && this.idle.length >= MAX_SPARE) {
			this.all.delete(session);
			void session.close(false);
			return;
		}
		this.idle.push(session);
	}

	/** An idle session that still reads lines (for a `drop`), if there is one; opens none. */
	idleSession(): ShellSession | undefined {
		return this.idle.find((session) => session.readsLines);
	}

	/**
	 * Ends every session in order as toolbelt exits (synchronous: an exit handler cannot await):
	 * `orphans` (files no session owns any more) are dropped first through an idle session, if there
	 * is one. Idle sessions with something to clean up are given up to `CLOSE_WAIT_MS` to do it: the
	 * transport's exit handler stops the connection next, and a `bye` not yet read on the remote side
	 * is lost with it (sshd drops what it had not passed on when the connection ends), its kept files
	 * then left until a sweep a day later. Busy sessions clean up once their command ends, unwaited
	 * for, as in `close`.
	 */
	endNow(orphans: readonly string[]): void {
		const via = this.idleSession();
		via?.drop(orphans);
		const answering = [...this.all].filter(
			(session) => !session.busy && (session.holdsLeftovers || (session === via && orphans.length > 0)),
		);
		for (const session of this.all) void session.close(false);
		waitForEndsSync(
			answering.flatMap((session) => session.child.pid ?? []),
			CLOSE_WAIT_MS,
		);
	}

	/** Forgets a session whose `once` run ended it (what it left is the caller's to stop). */
	retire(session: ShellSession): void {
		this.all.delete(session);
	}

	/**
	 * Ends every session in order: idle ones clean up on their side (kill left-over jobs, remove
	 * kept files) and are waited for; busy ones do so once their command ends.
	 */
	async close(): Promise<void> {
		await this.opening;
		const sessions = [...this.all];
		this.all.clear();
		this.idle.length = 0;
		await Promise.all(sessions.map((session) => session.close(!session.busy)));
	}
}
