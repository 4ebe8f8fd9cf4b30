import type { Checkpoints } from "../../checkpoints/index.js";
import type { ToolCall, ToolHooks, ToolTarget } from "../../engine/index.js";

/** The hooks of checkpoints opened at the first call that may change a file, around the safety layer's. */
export interface LazyCheckpointHooks {
	/** Goes before the safety layer's hooks: starts a turn per request when asked to. */
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
 * the file tools each pass these hooks with their own targets. The store applies the same rule to
 * what it records; it is asked here without it, so that a start that changes no file never loads
 * the checkpoints' modules.
 */
function changesFiles(target: ToolTarget | undefined): boolean {
	return target?.access === "write";
}

/**
 * Checkpoint hooks that open the store (`open`, run once) at the first call that may change a file
 * or in the pause before it (`openAhead`) instead of at start: a server answers `initialize`
 * without waiting for the state folder to be made and its name hashed (which loads crypto), and a
 * first call that only runs a command or reads does not wait for it either. A store that cannot
 * open records nothing, as at start. An `open` that resolves at once gives the same hooks over a
 * store opened before.
 *
 * With `turnPerCall` (a server: one turn per client request), each of the model's own calls that
 * may change a file starts a turn; a program's (code mode), whose inner calls change the files,
 * starts one at its first such inner call, which all its others share: `undo` takes the program's
 * changes back together. A call that changes no file starts none (a turn holds what its calls changed).
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
	/**
	 * The model's calls that change no file themselves, whose first inner change starts their turn.
	 * By the call itself, not its id: two clients of one server may send the same request id; and
	 * weakly, so that a call blocked before it ran (no hook sees it end) leaves nothing behind.
	 */
	const turnDue = new WeakSet<ToolCall>();
	/** Whether the call starts a turn (see above); a program's first inner change takes its due turn. */
	const startsTurn = (toolCall: ToolCall, target: ToolTarget | undefined, parent: ToolCall | undefined) => {
		if (!turnPerCall) return false;
		if (parent === undefined) {
			if (changesFiles(target)) return true;
			turnDue.add(toolCall);
			return false;
		}
		return changesFiles(target) && turnDue.delete(parent);
	};
	return {
		before: {
			beforeToolCall: async ({ toolCall, target, parent }) => {
				const starts = startsTurn(toolCall, target, parent);
				if (!changesFiles(target)) return undefined;
				const store = await checkpoints();
				if (starts) store?.startTurn();
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
