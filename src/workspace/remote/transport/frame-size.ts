import type { KeptOutputOptions } from "../../shell/exec-types.js";
import { renderTail, type TailBudget } from "../../shell/output-tail.js";

/** The first tail frame of a run: enough for 2000 lines of up to 32 bytes, a quarter of the full window. */
const FIRST_FRAME_BYTES = 64 * 1024;

/**
 * Most raw tail bytes the model's view may be rendered from, as locally (`FileShellOutput`):
 * sanitizing shrinks output (colour codes, redraws), so more raw bytes than the budget are read.
 */
export function keepBytes(options: KeptOutputOptions): number {
	return Math.max(4 * options.budget.maxBytes, 256 * 1024);
}

/**
 * The size of the final frame a run asks for first: a narrower one than `keepBytes` (fewer bytes
 * to send and read), always more than the budget's bytes, so an output the remote side removed
 * as fitting is whole in it. `needsWiderFrame` says when the full window is needed after all.
 */
export function firstFrameBytes(options: KeptOutputOptions): number {
	return Math.min(keepBytes(options), Math.max(FIRST_FRAME_BYTES, options.budget.maxBytes + 1));
}

/**
 * True when the view rendered from a narrow tail (`bytes`, the last of `size` raw bytes) might
 * differ from the one rendered from the full window (`keep` bytes): the narrow tail is the whole
 * output, or its last `maxLines` lines begin inside it, else the full window is read. Rendering
 * cuts the raw bytes to their last `maxLines` lines before anything else (see `renderTail`), so
 * when that cut falls inside the narrow tail both renderings see the very same bytes; otherwise
 * a terminal sequence begun before it (an OSC title, say) could reach into it.
 */
export function needsWiderFrame(bytes: Buffer, size: number, keep: number, budget: TailBudget): boolean {
	if (size <= bytes.length || bytes.length >= keep) return false;
	return !renderTail(bytes, true, budget).cut;
}

/**
 * True when the raw output surely fits the budget: the remote side then removes its file at once
 * (sanitizing only shrinks bytes; the lines are checked again after it by `keptOutputOf`).
 */
export const rawFitsScript = `[ "$size" -le "$fitBytes" ] && [ "$lines" -lt "$fitLines" ]`;

/** Whether the remote side removed the file by `rawFitsScript`'s rule. */
export function rawFits(frame: { size: number; newlines: number }, budget: TailBudget): boolean {
	return frame.size <= budget.maxBytes && frame.newlines < budget.maxLines;
}
