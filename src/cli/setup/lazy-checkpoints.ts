import type { Checkpoints } from "../../checkpoints/index.js";
import type { ToolHooks, ToolTarget } from "../../engine/index.js";

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
 * Whether a call's target may change files, which is what checkpoints record: a write target. A
 * command's is not (a shell call is not recorded), nor a program's in code mode, whose calls of
 * the file tools each pass these hooks with their own targets.
 */
function changesFiles(target: ToolTarget | undefined): boolean {
	return target?.access === "write";
}

/**
 * Checkpoint hooks that open the store (`open`, run once) at the first call that may change a file
 * or in the pause before it (`openAhead`) instead of at start: a server answers `initialize`
 * without waiting for the state folder to be made and its name hashed (which loads crypto), and a
 * first call that only runs a command or reads does not wait for it either. Calls that change no
 * file record nothing and start no turn (a turn holds what its calls changed). A store that cannot
 * open records nothing, as at start.
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
			beforeToolCall: async ({ target }) => {
				if (!changesFiles(target)) return undefined;
				const store = await checkpoints();
				if (turnPerCall) store?.startTurn();
				return undefined;
			},
		},
		after: {
			beforeToolCall: async (context, signal) =>
				changesFiles(context.target) ? (await checkpoints())?.hooks.beforeToolCall?.(context, signal) : undefined,
			// A call the store was opened for (or one after it) may have a record pending; none before.
			afterToolCall: async (context, signal) =>
				opened ? (await opened)?.hooks.afterToolCall?.(context, signal) : undefined,
		},
		openAhead: () => {
			// A store that cannot open says so on stderr (`open`) and records nothing, as at a call.
			setTimeout(() => void checkpoints().catch(() => {}), OPEN_AHEAD_MS).unref();
		},
	};
}
