import type { ToolResult } from "../../engine/index.js";

// What command hooks hand the engine beside their decision: result patches, and the mark of hooks
// that ran.

/** The result patch that appends `texts` to a result's content (undefined when there is nothing to add). */
export function appendContext(result: ToolResult, texts: readonly string[], terminate?: boolean) {
	if (texts.length === 0 && !terminate) return undefined;
	const content =
		texts.length === 0 ? undefined : [...result.content, ...texts.map((text) => ({ type: "text" as const, text }))];
	return { ...(content ? { content } : {}), ...(terminate ? { terminate: true } : {}) };
}

/**
 * A hook chain's answer (a decision or a result patch) marked as coming from hooks that ran, when
 * they did (`BeforeToolCallResult.sideEffects`): a hook command may have changed files the next
 * calls look up.
 */
export function withSideEffects<Patch extends object>(
	patch: Patch | undefined,
	outcome: { ran?: boolean },
): (Patch & { sideEffects?: boolean }) | undefined {
	if (!outcome.ran) return patch;
	return { ...(patch ?? ({} as Patch)), sideEffects: true };
}
