/**
 * What must happen when this process ends, however it ends: at its exit, and at a SIGINT, SIGTERM
 * or SIGHUP that nothing else handles. Node's `exit` event does not fire when such a signal ends
 * the process, so a clean-up registered only there (an ssh connection's master with
 * `ControlPersist`, a proxy's socket file, a hook launcher, a sandbox's mount points) outlived a
 * CLI stopped by a timeout's SIGTERM. Every such clean-up registers here, in one list, so that one
 * signal handler runs them all and only one decides whether the signal is someone else's.
 */

/** The signals that end a process unless someone handles them. */
const endSignals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** In the order they run. */
const cleanups: (() => void)[] = [];
let installed = false;

/** Options of `atProcessEnd`. */
export interface ProcessEndOptions {
	/**
	 * Runs before the clean-ups registered so far: for a step others depend on (sessions saying
	 * goodbye before the transport under them closes). Default: after them.
	 */
	first?: boolean;
}

/**
 * Runs `cleanup` once when the process ends: at its exit, or at a SIGINT, SIGTERM or SIGHUP that
 * no other listener handles (the process then still dies of the signal, as it would have). The
 * clean-up must be synchronous: nothing awaited runs after the exit began. Returns the function
 * that cancels it (for an orderly close that cleaned up already).
 */
export function atProcessEnd(cleanup: () => void, options: ProcessEndOptions = {}): () => void {
	if (options.first) cleanups.unshift(cleanup);
	else cleanups.push(cleanup);
	install();
	return () => {
		const index = cleanups.indexOf(cleanup);
		if (index !== -1) cleanups.splice(index, 1);
		if (cleanups.length === 0) uninstall();
	};
}

function runCleanups(): void {
	const due = cleanups.splice(0);
	uninstall();
	for (const cleanup of due) {
		try {
			cleanup();
		} catch {
			// One failed clean-up must not keep the others from running.
		}
	}
}

function onSignal(signal: NodeJS.Signals): void {
	// Someone else handles this signal (e.g. a CLI that cancels the current turn on Ctrl+C): the
	// process is not dying, so nothing is cleaned up; its exit does it later.
	if (process.listeners(signal).some((listener) => listener !== onSignal)) return;
	runCleanups();
	// With no listener left, the signal's default action ends the process (exit status 128 + n).
	process.kill(process.pid, signal);
}

function install(): void {
	if (installed) return;
	installed = true;
	process.on("exit", runCleanups);
	// First in line: `onSignal` must see the other listeners of the signal, and a `once` listener
	// that ran before it would already have removed itself.
	for (const signal of endSignals) process.prependListener(signal, onSignal);
}

function uninstall(): void {
	if (!installed) return;
	installed = false;
	process.off("exit", runCleanups);
	for (const signal of endSignals) process.off(signal, onSignal);
}
