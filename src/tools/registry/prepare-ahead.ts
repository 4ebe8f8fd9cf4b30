import { registerSessionCleanup } from "../../workspace/local/index.js";

/** A tool's preparation for its first call, started at its creation or a moment later. */
export interface PreparedAhead {
	/** Call as a call begins: a preparation still waiting is dropped, since the call starts what it needs itself. */
	beforeCall(): void;
}

/**
 * Runs `prepare` (what a tool's first call needs, started ahead: a standby shell, ripgrep's
 * launcher) now, or `afterMs` later on a timer that keeps no process alive. Each such start forks
 * this process, which blocks it for several milliseconds: a host that answers a handshake or sends
 * a model request before any call can come moves them past it, into the pause before the first
 * call (`ToolsOptions.prepareAfterMs`). A waiting preparation is dropped when the shell processes
 * are disposed of (`disposeShellProcesses`, a server's close): nothing starts after that.
 */
export function prepareAhead(prepare: () => void, afterMs = 0): PreparedAhead {
	if (afterMs <= 0) {
		prepare();
		return { beforeCall: () => {} };
	}
	let timer: NodeJS.Timeout | undefined = setTimeout(() => {
		timer = undefined;
		unregister();
		prepare();
	}, afterMs);
	timer.unref();
	const drop = () => {
		clearTimeout(timer);
		timer = undefined;
		unregister();
	};
	const unregister = registerSessionCleanup({ killNow: drop, dispose: async () => drop() });
	return { beforeCall: drop };
}
