import type { Checkpoints } from "../../checkpoints/index.js";
import type { ToolHooks } from "../../engine/index.js";

/** The hooks of checkpoints opened at the first call, around the safety layer's. */
export interface LazyCheckpointHooks {
	/** Goes before the safety layer's hooks: starts a turn per call when asked to. */
	before: ToolHooks;
	/** Goes after them: records the before-images of the files a call changes. */
	after: ToolHooks;
	/**
	 * Opens the store in the pause after the handshake (`OPEN_AHEAD_MS` later), unless a call has
	 * opened it by then: the first call then finds it open. The timer keeps no process alive.
	 */
	openAhead(): void;
}

/** How long after `openAhead` the store opens: an MCP client's `initialize` and `tools/list` pass first. */
export const OPEN_AHEAD_MS = 200;

/**
 * Checkpoint hooks that open the store (`open`, run once) on the first call or in the pause before
 * it (`openAhead`) instead of at start: a server answers `initialize` without waiting for the state
 * folder to be made and its name hashed (which loads crypto). A store that cannot open records
 * nothing, as at start.
 */
export function lazyCheckpointHooks(
	open: () => Promise<Checkpoints | undefined>,
	turnPerCall: boolean,
): LazyCheckpointHooks {
	let opened: Promise<Checkpoints | undefined> | undefined;
	const checkpoints = () => {
		opened ??= open();
		return opened;
	};
	return {
		before: {
			beforeToolCall: async () => {
				const store = await checkpoints();
				if (turnPerCall) store?.startTurn();
				return undefined;
			},
		},
		after: {
			beforeToolCall: async (context, signal) => (await checkpoints())?.hooks.beforeToolCall?.(context, signal),
			afterToolCall: async (context, signal) => (await checkpoints())?.hooks.afterToolCall?.(context, signal),
		},
		openAhead: () => {
			// A store that cannot open says so on stderr (`open`) and records nothing, as at a call.
			setTimeout(() => void checkpoints().catch(() => {}), OPEN_AHEAD_MS).unref();
		},
	};
}
