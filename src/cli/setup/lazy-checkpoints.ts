import type { Checkpoints } from "../../checkpoints/index.js";
import type { ToolHooks } from "../../engine/index.js";

/** The hooks of checkpoints opened at the first call, around the safety layer's. */
export interface LazyCheckpointHooks {
	/** Goes before the safety layer's hooks: starts a turn per call when asked to. */
	before: ToolHooks;
	/** Goes after them: records the before-images of the files a call changes. */
	after: ToolHooks;
}

/**
 * Checkpoint hooks that open the store (`open`, run once) on the first call instead of at start:
 * a server answers `initialize` without waiting for the state folder to be made and its name
 * hashed (which loads crypto). A store that cannot open records nothing, as at start.
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
	};
}
