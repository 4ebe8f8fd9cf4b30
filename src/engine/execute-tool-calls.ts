import { raceAbort } from "./abort.js";
import { applyBatchBudget } from "./batch-budget.js";
import { coveredBy, PendingCalls, settledAll } from "./call-conflicts.js";
import {
	abortedBeforeStart,
	errorOutcome,
	isToolResult,
	type Outcome,
	outcomeOfThrow,
	parseArguments,
} from "./call-outcome.js";
import { monotonicMs } from "./clock.js";
import { errorMessage } from "./errors.js";
import { childEvent, createThrottle, emitSafely, type Throttle } from "./events.js";
import { applyResultPatch, declaredTarget } from "./hooks.js";
import type {
	AnyAgentTool,
	ExecuteToolCallsOptions,
	ExecuteToolCallsResult,
	NestedToolCalls,
	ToolCall,
	ToolExecutionEvent,
	ToolResult,
	ToolResultMessage,
	ToolTarget,
} from "./types.js";
import { validateToolArguments } from "./validation/validate.js";

/** A call ready to run: its tool, its final arguments, and the target the hooks saw. */
interface ReadyCall {
	ready: true;
	tool: AnyAgentTool;
	args: Record<string, unknown>;
	target: ToolTarget | undefined;
	terminate: boolean;
	/** What was repaired in the arguments' JSON, told to the model with the result. */
	repaired?: string;
}

type Preparation = { ready: false; outcome: Outcome } | ReadyCall;

/** The state of one batch, shared by its phases (prepare, run, finish). */
interface BatchState {
	options: ExecuteToolCallsOptions;
	toolsByName: Map<string, AnyAgentTool>;
	messages: ToolResultMessage[];
	terminate: boolean;
	updateIntervalMs: number;
	abortGraceMs: number;
	/** The look-ups the calls declared from now on share (`TargetContext.lookups`). */
	lookups: Map<string, unknown>;
}

/** Drops the batch's shared look-ups: a call that may change anything starts or has ended. */
function forgetLookups(state: BatchState): void {
	state.lookups = new Map();
}

function emit(state: BatchState, event: ToolExecutionEvent): void {
	emitSafely(state.options.onEvent, event);
}

/** Records a call's one result message and emits its one end event. */
function finish(state: BatchState, index: number, toolCall: ToolCall, outcome: Outcome, startedAt: number): void {
	if (outcome.result.terminate) state.terminate = true;
	state.messages[index] = {
		role: "toolResult",
		toolCallId: toolCall.id,
		toolName: toolCall.name,
		content: outcome.result.content,
		details: outcome.result.details,
		isError: outcome.isError,
		timestamp: Date.now(),
	};
	// No event is built for nobody (a batch of 1,000 writes without a listener).
	if (state.options.onEvent)
		emit(state, {
			type: "tool_execution_end",
			toolCallId: toolCall.id,
			toolName: toolCall.name,
			result: outcome.result,
			isError: outcome.isError,
			durationMs: Math.round(monotonicMs() - startedAt),
		});
}

/** A call whose tool, arguments and target are known; its hooks have not run yet. */
type Declared = Omit<ReadyCall, "terminate">;

/** Looks the tool up, repairs and validates the arguments, and asks for the target. No hook runs. */
async function declare(state: BatchState, toolCall: ToolCall): Promise<Declared | { ready: false; outcome: Outcome }> {
	const tool = state.toolsByName.get(toolCall.name);
	if (!tool) {
		const available = [...state.toolsByName.keys()].join(", ") || "(none)";
		return { ready: false, outcome: errorOutcome(`Tool "${toolCall.name}" not found. Available tools: ${available}.`) };
	}
	try {
		const read = parseArguments(toolCall.name, toolCall.arguments);
		const raw = read.value;
		const args = validateToolArguments(tool, tool.prepareArguments ? tool.prepareArguments(raw) : raw);
		const target = await declaredTarget(tool, args, { lookups: state.lookups });
		return { ready: true, tool, args, target, ...(read.repaired ? { repaired: read.repaired } : {}) };
	} catch (error) {
		return { ready: false, outcome: errorOutcome(errorMessage(error)) };
	}
}

/** Runs `beforeToolCall` on a declared call. */
async function judge(state: BatchState, toolCall: ToolCall, declared: Declared): Promise<Preparation> {
	const { beforeToolCall, signal } = state.options;
	const { tool, repaired } = declared;
	let { args, target } = declared;
	const repairedField = repaired ? { repaired } : {};
	if (!beforeToolCall) return { ready: true, tool, args, target, terminate: false, ...repairedField };
	try {
		const { parentToolCall: parent } = state.options;
		const decision = await beforeToolCall({ toolCall, tool, args, target, ...(parent ? { parent } : {}) }, signal);
		// The hook may have changed what paths resolve to: the calls declared after it look again.
		if (decision?.sideEffects) forgetLookups(state);
		const stop = decision?.terminate === true;
		if (decision?.block) {
			const reason = decision.reason ?? `Tool call "${toolCall.name}" was blocked by a hook.`;
			const outcome = errorOutcome(reason, decision.details);
			if (stop) outcome.result.terminate = true;
			return { ready: false, outcome };
		}
		if (decision?.args) {
			args = validateToolArguments(tool, decision.args);
			// `composeHooks` already showed later hooks the rewritten call's target; the tool gets the same.
			target = decision.target ?? (await declaredTarget(tool, args, { lookups: state.lookups }));
		}
		return { ready: true, tool, args, target, terminate: stop, ...repairedField };
	} catch (error) {
		return { ready: false, outcome: errorOutcome(`beforeToolCall hook failed: ${errorMessage(error)}`) };
	}
}

/** Runs the tool, turning a throw, an invalid result or an abort past the grace time into an outcome. */
async function run(state: BatchState, toolCall: ToolCall, call: ReadyCall): Promise<Outcome> {
	const { tool } = call;
	const { signal } = state.options;
	// Made at the first update: most calls (a write, a read) send none.
	let throttle: Throttle<ToolResult> | undefined;
	let settled = false;
	const onUpdate = (partial: ToolResult) => {
		// An update after the result is dropped, as a closed throttle drops it.
		if (settled) return;
		throttle ??= createThrottle<ToolResult>(state.updateIntervalMs, (partialResult) =>
			emit(state, {
				type: "tool_execution_update",
				toolCallId: toolCall.id,
				toolName: tool.name,
				args: toolCall.arguments,
				partialResult,
			}),
		);
		throttle.push(partial);
	};
	let outcome: Outcome;
	try {
		const result: unknown = await raceAbort(startTool(state, toolCall, call, onUpdate), {
			signal,
			graceMs: state.abortGraceMs,
		});
		outcome = isToolResult(result)
			? { result, isError: false }
			: errorOutcome(`Tool "${tool.name}" returned an invalid result (no content array).`);
	} catch (error) {
		outcome = outcomeOfThrow(tool.name, error);
	} finally {
		settled = true;
		throttle?.close();
	}
	if (call.terminate) outcome.result = { ...outcome.result, terminate: true };
	if (call.repaired) {
		outcome.result = {
			...outcome.result,
			content: [...outcome.result.content, { type: "text", text: `[${call.repaired}]` }],
		};
	}
	return outcome;
}

/**
 * The tool's task. A throw before the tool's first await rejects it like any other; a promise the
 * tool returns is the task itself (`new Promise` resolved with it would take two more turns of the
 * microtask queue per call).
 */
function startTool(
	state: BatchState,
	toolCall: ToolCall,
	call: ReadyCall,
	onUpdate: (partial: ToolResult) => void,
): Promise<unknown> {
	try {
		return Promise.resolve(
			call.tool.execute(toolCall.id, call.args, state.options.signal, onUpdate, {
				target: call.target,
				...(state.options.session ? { session: state.options.session } : {}),
				nestedCalls: nestedCallsOf(state, toolCall),
			}),
		);
	} catch (error) {
		return Promise.reject(error);
	}
}

/** The batch's tools as `NestedToolCalls` of one running call: each call is a batch of one, with the batch's options. */
function nestedCallsOf(state: BatchState, parent: ToolCall): NestedToolCalls {
	let count = 0;
	const { onEvent } = state.options;
	return {
		tools: state.options.tools,
		run: async (call, signal = state.options.signal) => {
			count++;
			const toolCall: ToolCall = {
				type: "toolCall",
				id: `${parent.id}.${count}`,
				name: call.name,
				arguments: call.arguments,
			};
			const { messages } = await executeToolCalls({
				...state.options,
				toolCalls: [toolCall],
				toolExecution: "parallel",
				signal,
				parentToolCall: parent,
				onEvent: onEvent ? (event) => onEvent(childEvent(event, parent.id)) : undefined,
			});
			return messages[0] as ToolResultMessage;
		},
	};
}

/** Lets `afterToolCall` patch the outcome; a throwing hook becomes an error result. */
async function afterRun(state: BatchState, toolCall: ToolCall, call: ReadyCall, outcome: Outcome): Promise<Outcome> {
	const { afterToolCall, signal } = state.options;
	if (!afterToolCall) return outcome;
	try {
		const { tool, args, target } = call;
		const { parentToolCall: parent } = state.options;
		const patch = await afterToolCall(
			{ toolCall, tool, args, target, ...(parent ? { parent } : {}), ...outcome },
			signal,
		);
		if (patch?.sideEffects) forgetLookups(state);
		return applyResultPatch(outcome, patch);
	} catch (error) {
		return errorOutcome(`afterToolCall hook failed: ${errorMessage(error)}`);
	}
}

async function settle(
	state: BatchState,
	index: number,
	toolCall: ToolCall,
	startedAt: number,
	preparation: Preparation,
): Promise<void> {
	let outcome = preparation.ready ? await run(state, toolCall, preparation) : preparation.outcome;
	if (preparation.ready && state.options.afterToolCall) outcome = await afterRun(state, toolCall, preparation, outcome);
	finish(state, index, toolCall, outcome, startedAt);
}

/**
 * Declares a call once the earlier calls it conflicts with (see `PendingCalls`) have finished, so
 * its target and hooks see their effects. The target is declared first to learn what the call
 * touches; when that meets a call still running, it is declared again after that call.
 */
async function declareInTurn(
	state: BatchState,
	toolCall: ToolCall,
	pending: PendingCalls,
	exclusive: boolean,
): Promise<Declared | { ready: false; outcome: Outcome }> {
	// Behind a command nothing is looked at until it is done: it may change what any path resolves to.
	const behind = pending.unknownConflicts({ exclusive });
	if (behind.length > 0) await Promise.all(behind);
	for (;;) {
		if (state.options.signal?.aborted) return { ready: false, outcome: abortedBeforeStart(toolCall.name) };
		const declared = await declare(state, toolCall);
		if (!declared.ready) return declared;
		const waits = pending.conflicts({ exclusive, keys: declared.target?.touches });
		if (waits.length === 0) return declared;
		await Promise.all(waits);
	}
}

/**
 * Runs the tool calls of one assistant message: prepares each in source order (lookup,
 * `prepareArguments`, validation with coercion, the tool's `target`, `beforeToolCall`), schedules
 * them (parallel, a `sequential` tool's call a barrier for the calls that touch what it touches
 * (`ToolTarget.touches`; every call when that is unknown), or one at a time), finalizes each with `afterToolCall`,
 * and returns exactly one result per call in source order — whatever throws, blocks or aborts.
 *
 * @example
 * const { messages } = await executeToolCalls({
 *   tools: createCodingTools(process.cwd()),
 *   toolCalls: [{ type: "toolCall", id: "1", name: "read", arguments: { path: "README.md" } }],
 * });
 */
export async function executeToolCalls(options: ExecuteToolCallsOptions): Promise<ExecuteToolCallsResult> {
	const { toolCalls, signal } = options;
	const mode = options.toolExecution ?? "parallel";
	const state: BatchState = {
		options,
		toolsByName: new Map(options.tools.map((tool) => [tool.name, tool])),
		messages: new Array(toolCalls.length),
		terminate: false,
		updateIntervalMs: options.updateIntervalMs ?? 100,
		abortGraceMs: options.abortGraceMs ?? 2000,
		lookups: new Map(),
	};
	const pending = new PendingCalls();
	const running: Promise<void>[] = [];
	// An index, not `entries()`: no iterator result and pair per call (this loop runs once per call of a batch of 1,000).
	for (let index = 0; index < toolCalls.length; index++) {
		const toolCall = toolCalls[index] as ToolCall;
		const exclusive = mode === "sequential" || state.toolsByName.get(toolCall.name)?.executionMode === "sequential";
		const declared = await declareInTurn(state, toolCall, pending, exclusive);
		const startedAt = monotonicMs();
		if (options.onEvent)
			emit(state, {
				type: "tool_execution_start",
				toolCallId: toolCall.id,
				toolName: toolCall.name,
				args: toolCall.arguments,
			});
		if (signal?.aborted) {
			finish(state, index, toolCall, abortedBeforeStart(toolCall.name), startedAt);
			continue;
		}
		const preparation = !declared.ready
			? declared
			: options.beforeToolCall
				? await judge(state, toolCall, declared)
				: { ...declared, terminate: false };
		const keys = preparation.ready ? preparation.target?.touches : undefined;
		if (preparation.ready && declared.ready && !coveredBy(keys, declared.target?.touches)) {
			// A hook moved the call to something else: it also waits for what touches that (its hooks judged it as it was).
			await settledAll(pending.conflicts({ exclusive, keys }));
		}
		if (signal?.aborted && preparation.ready) {
			finish(state, index, toolCall, abortedBeforeStart(toolCall.name), startedAt);
			continue;
		}
		const task = settle(state, index, toolCall, startedAt, preparation);
		if (preparation.ready && keys === undefined) {
			// It may change what any path resolves to, while it runs and for every call after it.
			forgetLookups(state);
			void task.then(() => forgetLookups(state));
		}
		if (mode === "sequential") await task;
		// Only later calls of this batch look at what is pending: the last one need not be indexed (a batch of one).
		else if (preparation.ready && index < toolCalls.length - 1) pending.add({ exclusive, keys }, task);
		running.push(task);
	}
	await Promise.all(running);
	const budget = options.batchOutputBudget;
	const messages = budget === undefined ? state.messages : applyBatchBudget(state.messages, budget);
	return { messages, terminate: state.terminate };
}
