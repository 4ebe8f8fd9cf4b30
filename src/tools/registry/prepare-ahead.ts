/** A tool's preparation for its first call, started at its creation or a moment later. */
export interface PreparedAhead {
	/** Call as a call begins: a preparation still waiting is dropped, since the call starts what it needs itself. */
	beforeCall(): void;
}

/**
 * Runs `prepare` (what a tool's first call needs, started ahead: a standby shell, ripgrep's
 * launcher) now, or `afterMs` later on a timer that keeps no process alive. Each such start forks
 * this process, which blocks it for several milliseconds: a server that answers a handshake before
 * any call can come (MCP's `initialize` and `tools/list`) moves them past it, into the pause
 * before the first call (`ToolsOptions.prepareAfterMs`).
 */
export function prepareAhead(prepare: () => void, afterMs = 0): PreparedAhead {
	if (afterMs <= 0) {
		prepare();
		return { beforeCall: () => {} };
	}
	let timer: NodeJS.Timeout | undefined = setTimeout(() => {
		timer = undefined;
		prepare();
	}, afterMs);
	timer.unref();
	return {
		beforeCall: () => {
			clearTimeout(timer);
			timer = undefined;
		},
	};
}
