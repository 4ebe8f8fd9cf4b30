import type {
	AfterToolCallHook,
	AfterToolCallResult,
	AnyAgentTool,
	BeforeToolCallHook,
	BeforeToolCallResult,
	TargetContext,
	ToolHooks,
	ToolResult,
	ToolTarget,
} from "./types.js";

/**
 * The target a tool declares for these arguments; `{ access: "execute" }` for a tool that
 * declares none, so every call has one (a fresh object per call, which hooks may use as the
 * call's own state).
 */
export function declaredTarget(
	tool: AnyAgentTool,
	args: Record<string, unknown>,
	context?: TargetContext,
): Promise<ToolTarget> {
	// The tool's own promise when it makes one (no wrapper of it per call); a throw rejects.
	try {
		return Promise.resolve(tool.target ? tool.target(args, context) : { access: "execute" });
	} catch (error) {
		return Promise.reject(error);
	}
}

/**
 * Applies an after-hook's patch to a result, field by field: `content`, `details` (also when set
 * to undefined), `terminate` and `isError` replace theirs; omitted fields stay. The one place the
 * merge is written, for the engine and for `composeHooks`.
 */
export function applyResultPatch(
	outcome: { result: ToolResult; isError: boolean },
	patch: AfterToolCallResult | undefined,
): { result: ToolResult; isError: boolean } {
	if (!patch) return outcome;
	return {
		result: {
			...outcome.result,
			...(patch.content !== undefined ? { content: patch.content } : {}),
			...("details" in patch ? { details: patch.details } : {}),
			...(patch.terminate !== undefined ? { terminate: patch.terminate } : {}),
		},
		isError: patch.isError ?? outcome.isError,
	};
}

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
		let target = context.target;
		let terminate = false;
		let rewritten = false;
		let sideEffects = false;
		for (const hook of hooks) {
			const decision = await hook({ ...context, args, target }, signal);
			if (!decision) continue;
			terminate ||= decision.terminate === true;
			sideEffects ||= decision.sideEffects === true;
			if (decision.block) return { ...decision, block: true, terminate, ...(sideEffects ? { sideEffects } : {}) };
			if (decision.args) {
				args = decision.args;
				// Later hooks judge what the rewritten call acts on, not what the model asked for.
				target = decision.target ?? (await declaredTarget(context.tool, args));
				rewritten = true;
			}
		}
		const result: BeforeToolCallResult = {};
		if (terminate) result.terminate = true;
		if (sideEffects) result.sideEffects = true;
		if (rewritten) {
			result.args = args;
			result.target = target;
		}
		return result;
	};
}

function chainAfter(hooks: AfterToolCallHook[]): AfterToolCallHook {
	return async (context, signal) => {
		let outcome = { result: context.result, isError: context.isError };
		const merged: AfterToolCallResult = {};
		let sideEffects = false;
		for (const hook of hooks) {
			const patch = await hook({ ...context, ...outcome }, signal);
			if (!patch) continue;
			Object.assign(merged, definedFields(patch));
			sideEffects ||= patch.sideEffects === true;
			outcome = applyResultPatch(outcome, patch);
		}
		if (sideEffects) merged.sideEffects = true;
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
