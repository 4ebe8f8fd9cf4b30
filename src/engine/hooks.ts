import type {
	AfterToolCallHook,
	AfterToolCallResult,
	BeforeToolCallHook,
	BeforeToolCallResult,
	ToolHooks,
} from "./types.js";

/**
 * Chains several hook pairs into one. Before-hooks run in order: each sees the arguments as
 * rewritten by earlier ones, the first block wins and stops the chain, and a terminate request
 * from any of them is kept. After-hooks run in order, each seeing the result as patched by the
 * ones before it; their patches merge field by field.
 */
export function composeHooks(hooks: readonly (ToolHooks | undefined)[]): ToolHooks {
	const befores = hooks.flatMap((hook) => (hook?.beforeToolCall ? [hook.beforeToolCall] : []));
	const afters = hooks.flatMap((hook) => (hook?.afterToolCall ? [hook.afterToolCall] : []));
	return {
		beforeToolCall: befores.length > 0 ? chainBefore(befores) : undefined,
		afterToolCall: afters.length > 0 ? chainAfter(afters) : undefined,
	};
}

function chainBefore(hooks: BeforeToolCallHook[]): BeforeToolCallHook {
	return async (context, signal) => {
		let args = context.args;
		let terminate = false;
		let rewritten = false;
		for (const hook of hooks) {
			const decision = await hook({ ...context, args }, signal);
			if (!decision) continue;
			terminate ||= decision.terminate === true;
			if (decision.block) return { block: true, reason: decision.reason, details: decision.details, terminate };
			if (decision.args) {
				args = decision.args;
				rewritten = true;
			}
		}
		const result: BeforeToolCallResult = {};
		if (terminate) result.terminate = true;
		if (rewritten) result.args = args;
		return result;
	};
}

function chainAfter(hooks: AfterToolCallHook[]): AfterToolCallHook {
	return async (context, signal) => {
		let result = context.result;
		let isError = context.isError;
		const merged: AfterToolCallResult = {};
		for (const hook of hooks) {
			const patch = await hook({ ...context, result, isError }, signal);
			if (!patch) continue;
			Object.assign(merged, definedFields(patch));
			result = {
				...result,
				...(patch.content !== undefined ? { content: patch.content } : {}),
				...("details" in patch ? { details: patch.details } : {}),
				...(patch.terminate !== undefined ? { terminate: patch.terminate } : {}),
			};
			if (patch.isError !== undefined) isError = patch.isError;
		}
		return merged;
	};
}

function definedFields(patch: AfterToolCallResult): AfterToolCallResult {
	const fields: AfterToolCallResult = {};
	if (patch.content !== undefined) fields.content = patch.content;
	if ("details" in patch) fields.details = patch.details;
	if (patch.isError !== undefined) fields.isError = patch.isError;
	if (patch.terminate !== undefined) fields.terminate = patch.terminate;
	return fields;
}
