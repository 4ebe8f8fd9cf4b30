/**
 * The session a tool call belongs to: an agent run, an interactive session, a server's lifetime.
 * A tool that leaves something running past its call (a background job) registers its clean-up
 * here, so whoever owns the session ends it all in one place.
 */
export interface ToolSession {
	/**
	 * Registers work to do when the session ends (kill a job's tree, remove a file); returns a
	 * function that unregisters it, for a resource that ended on its own. When the session has
	 * ended already, the clean-up runs at once.
	 */
	onEnd(cleanup: () => void | Promise<void>): () => void;
	/** True once `end` was called. */
	readonly ended: boolean;
}

/** Default longest wait for a session's clean-ups, in ms (a tree kill takes at most a few seconds). */
export const DEFAULT_SESSION_END_TIMEOUT_MS = 10_000;

/** A session its owner ends: the owner's half of `ToolSession`. */
export interface OwnedToolSession extends ToolSession {
	/**
	 * Ends the session: runs every registered clean-up at once and waits for them, at most
	 * `timeoutMs` (default 10 s). A throwing clean-up does not stop the others. Idempotent.
	 */
	end(timeoutMs?: number): Promise<void>;
}

function runQuietly(cleanup: () => void | Promise<void>): Promise<void> {
	// A clean-up that fails has nothing left to report to; the others must still run.
	return Promise.resolve()
		.then(cleanup)
		.catch(() => {});
}

/** Creates a session; its owner calls `end()` when the run, session or server ends. */
export function createToolSession(): OwnedToolSession {
	const cleanups = new Set<() => void | Promise<void>>();
	let ended = false;
	return {
		get ended() {
			return ended;
		},
		onEnd(cleanup) {
			if (ended) {
				void runQuietly(cleanup);
				return () => {};
			}
			cleanups.add(cleanup);
			return () => {
				cleanups.delete(cleanup);
			};
		},
		async end(timeoutMs = DEFAULT_SESSION_END_TIMEOUT_MS) {
			ended = true;
			const pending = [...cleanups].map(runQuietly);
			cleanups.clear();
			if (pending.length === 0) return;
			let timer: NodeJS.Timeout | undefined;
			const timeout = new Promise<void>((resolve) => {
				timer = setTimeout(resolve, timeoutMs);
			});
			await Promise.race([Promise.all(pending), timeout]);
			clearTimeout(timer);
		},
	};
}
