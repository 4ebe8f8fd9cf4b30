import type { ToolHooks } from "../../engine/index.js";
import { declaredTarget } from "../../engine/index.js";
import { callStateOf } from "../call-state.js";
import type { createCommandHooks } from "./command-hooks.js";
import { appendContext, withSideEffects } from "./hook-result-patch.js";

type CommandHooks = ReturnType<typeof createCommandHooks>;

/**
 * The PreToolUse command hooks as a unit: a block stops the chain; otherwise what they decided
 * and the context they added go into the call's state, on the target of the (possibly rewritten) call.
 */
export function preToolUseUnit(commandHooks: CommandHooks): ToolHooks {
	return {
		beforeToolCall: async (context, signal) => {
			const pre = await commandHooks.runPreToolUse(context, signal);
			if (pre.block) return withSideEffects({ block: true, reason: pre.reason, terminate: pre.terminate }, pre);
			const target = pre.args ? await declaredTarget(context.tool, pre.args) : context.target;
			const state = callStateOf(target);
			state.hookDecision = pre.permissionDecision;
			state.additionalContext = pre.additionalContext;
			return withSideEffects(pre.args ? { args: pre.args, target } : undefined, pre);
		},
	};
}

/** The PostToolUse command hooks as a unit, with the context the PreToolUse hooks added before them. */
export function postToolUseUnit(commandHooks: CommandHooks): ToolHooks {
	return {
		afterToolCall: async (context, signal) => {
			const post = await commandHooks.runPostToolUse(context, signal);
			const before = callStateOf(context.target).additionalContext;
			return withSideEffects(
				appendContext(context.result, [...before, ...post.additionalContext], post.terminate),
				post,
			);
		},
	};
}
