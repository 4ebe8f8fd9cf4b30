import type { ToolTarget } from "../engine/index.js";
import type { HookPermissionDecision } from "./hooks/command-hooks.js";

/**
 * What the safety units learn about one call and pass on to each other: it lives on the call's
 * target (a fresh object per call, carried by the engine from the first before-hook to the last
 * after-hook), so no side map keyed by call id links one guard to another.
 */
export interface SafetyCallState {
	/** What a PreToolUse command hook decided, for the permission unit. */
	hookDecision?: HookPermissionDecision;
	/** Context the PreToolUse hooks added, appended to the result after the call. */
	additionalContext: string[];
}

type TargetWithState = ToolTarget & { safety?: SafetyCallState };

/** The safety state of the call whose target this is (created on first use). Without a target, a throwaway one. */
export function callStateOf(target: ToolTarget | undefined): SafetyCallState {
	if (!target) return { additionalContext: [] };
	const holder = target as TargetWithState;
	holder.safety ??= { additionalContext: [] };
	return holder.safety;
}
