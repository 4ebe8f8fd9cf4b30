import { AbortError, errorMessage, isAbortError, ToolError } from "./errors.js";
import { createThrottle, emitSafely } from "./events.js";
import type {
	AnyAgentTool,
	ExecutionMode,
	ToolCall,
	ToolExecutionEvent,
	ToolHooks,
	ToolResult,
	ToolResultMessage,
} from "./types.js";
import { validateToolArguments } from "./validate.js";

/** Options of `executeToolCalls`. */
export interface ExecuteToolCallsOptions extends ToolHooks {
	/** The tools the model may call. Names must be unique. */
	tools: readonly AnyAgentTool[];
	/** The tool calls of one assistant message, in source order. */
	toolCalls: readonly ToolCall[];
	/**
	 * `parallel` runs calls concurrently, with `executionMode: "sequential"` tools as barriers;
	 * `sequential` runs one call at a time. Default: `parallel`.
	 */
	toolExecution?: ExecutionMode;
	/** Aborts the batch: running calls get the signal, calls not yet started get an error result. */
	signal?: AbortSignal;
	/** Receives `tool_execution_*` events. Ends arrive in completion order. */
	onEvent?: (event: ToolExecutionEvent) => void;
	/** Least time between two `tool_execution_update` events of one call, in ms. Default: 100. */
	updateIntervalMs?: number;
	/**
	 * After an abort, how long to wait for a running tool to honour the signal before its call is
	 * settled as aborted anyway, in ms. Guarantees that an abort always ends the batch. Default: 2000.
	 */
	abortGraceMs?: number;
}

/** What `executeToolCalls` returns. */
export interface ExecuteToolCallsResult {
	/** One result per tool call, in source order. */
	messages: ToolResultMessage[];
	/** True when any call (or hook) asked the agent loop to stop after this batch. */
	terminate: boolean;
}

interface Outcome {
	result: ToolResult;
	isError: boolean;
}

type Preparation =
	| { ready: false; outcome: Outcome }
	| { ready: true; tool: AnyAgentTool; args: Record<string, unknown>; terminate: boolean };

function errorOutcome(text: string, details?: unknown): Outcome {
	return { result: { content: [{ type: "text", text }], details }, isError: true };
}

function abortedBeforeStart(toolName: string): Outcome {
	return errorOutcome(`Tool "${toolName}" was not run: the run was aborted before this call started.`);
}

function outcomeOfThrow(toolName: string, error: unknown): Outcome {
	if (isAbortError(error)) {
		return errorOutcome(`Tool "${toolName}" was cancelled: the run was aborted while it was running.`);
	}
	return errorOutcome(errorMessage(error), error instanceof ToolError ? error.details : undefined);
}

function isToolResult(value: unknown): value is ToolResult {
	return typeof value === "object" && value !== null && Array.isArray((value as ToolResult).content);
}

/** Rejects with `AbortError` if `signal` aborts and `promise` has not settled `graceMs` later. */
function settleWithinGrace<T>(promise: Promise<T>, signal: AbortSignal | undefined, graceMs: number): Promise<T> {
	if (!signal) return promise;
	promise.catch(() => {});
	return new Promise<T>((resolve, reject) => {
		let timer: NodeJS.Timeout | undefined;
		const onAbort = () => {
			timer = setTimeout(() => reject(new AbortError()), graceMs);
		};
		const cleanup = () => {
			signal.removeEventListener("abort", onAbort);
			if (timer) clearTimeout(timer);
		};
		if (signal.aborted) onAbort();
		else signal.addEventListener("abort", onAbort, { once: true });
		promise.then(
			(value) => {
				cleanup();
				resolve(value);
			},
			(error: unknown) => {
				cleanup();
				reject(error);
			},
		);
	});
}

/** Some models send the arguments object as a JSON string; a string that is not JSON is an error the model can fix. */
function parseArguments(toolName: string, raw: unknown): unknown {
	if (typeof raw !== "string") return raw;
	try {
		return JSON.parse(raw);
	} catch (error) {
		const shown = raw.length > 2000 ? `${raw.slice(0, 2000)}… [${raw.length - 2000} more characters]` : raw;
		throw new Error(
			`The arguments for tool "${toolName}" are not valid JSON (${errorMessage(error)}). ` +
				`Send one JSON object matching the tool's schema.\n\nReceived:\n${shown}`,
		);
	}
}

/**
 * Runs the tool calls of one assistant message: prepares each in source order (lookup,
 * `prepareArguments`, validation with coercion, `beforeToolCall`), schedules them (parallel with
 * sequential barriers, or one at a time), finalizes each with `afterToolCall`, and returns exactly
 * one result per call in source order — whatever throws, blocks or aborts.
 */
export async function executeToolCalls(options: ExecuteToolCallsOptions): Promise<ExecuteToolCallsResult> {
	const { toolCalls, signal } = options;
	const mode = options.toolExecution ?? "parallel";
	const updateIntervalMs = options.updateIntervalMs ?? 100;
	const abortGraceMs = options.abortGraceMs ?? 2000;
	const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
	const messages: ToolResultMessage[] = new Array(toolCalls.length);
	let terminate = false;
	const emit = (event: ToolExecutionEvent) => emitSafely(options.onEvent, event);

	const finish = (index: number, toolCall: ToolCall, outcome: Outcome, startedAt: number) => {
		if (outcome.result.terminate) terminate = true;
		messages[index] = {
			role: "toolResult",
			toolCallId: toolCall.id,
			toolName: toolCall.name,
			content: outcome.result.content,
			details: outcome.result.details,
			isError: outcome.isError,
			timestamp: Date.now(),
		};
		emit({
			type: "tool_execution_end",
			toolCallId: toolCall.id,
			toolName: toolCall.name,
			result: outcome.result,
			isError: outcome.isError,
			durationMs: Date.now() - startedAt,
		});
	};

	const prepare = async (toolCall: ToolCall): Promise<Preparation> => {
		const tool = toolsByName.get(toolCall.name);
		if (!tool) {
			const available = [...toolsByName.keys()].join(", ") || "(none)";
			return {
				ready: false,
				outcome: errorOutcome(`Tool "${toolCall.name}" not found. Available tools: ${available}.`),
			};
		}
		let args: Record<string, unknown>;
		try {
			const raw = parseArguments(toolCall.name, toolCall.arguments);
			args = validateToolArguments(tool, tool.prepareArguments ? tool.prepareArguments(raw) : raw);
		} catch (error) {
			return { ready: false, outcome: errorOutcome(errorMessage(error)) };
		}
		if (!options.beforeToolCall) return { ready: true, tool, args, terminate: false };
		try {
			const decision = await options.beforeToolCall({ toolCall, tool, args }, signal);
			const stop = decision?.terminate === true;
			if (decision?.block) {
				const reason = decision.reason ?? `Tool call "${toolCall.name}" was blocked by a hook.`;
				const outcome = errorOutcome(reason, decision.details);
				if (stop) outcome.result.terminate = true;
				return { ready: false, outcome };
			}
			if (decision?.args) args = validateToolArguments(tool, decision.args);
			return { ready: true, tool, args, terminate: stop };
		} catch (error) {
			return { ready: false, outcome: errorOutcome(`beforeToolCall hook failed: ${errorMessage(error)}`) };
		}
	};

	const run = async (toolCall: ToolCall, preparation: Preparation & { ready: true }): Promise<Outcome> => {
		const { tool, args } = preparation;
		const throttle = createThrottle<ToolResult>(updateIntervalMs, (partialResult) =>
			emit({
				type: "tool_execution_update",
				toolCallId: toolCall.id,
				toolName: tool.name,
				args: toolCall.arguments,
				partialResult,
			}),
		);
		let outcome: Outcome;
		try {
			const result: unknown = await settleWithinGrace(
				Promise.resolve().then(() => tool.execute(toolCall.id, args, signal, (partial) => throttle.push(partial))),
				signal,
				abortGraceMs,
			);
			outcome = isToolResult(result)
				? { result, isError: false }
				: errorOutcome(`Tool "${tool.name}" returned an invalid result (no content array).`);
		} catch (error) {
			outcome = outcomeOfThrow(tool.name, error);
		} finally {
			throttle.close();
		}
		if (preparation.terminate) outcome.result = { ...outcome.result, terminate: true };
		if (!options.afterToolCall) return outcome;
		try {
			const patch = await options.afterToolCall(
				{ toolCall, tool, args, result: outcome.result, isError: outcome.isError },
				signal,
			);
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
		} catch (error) {
			return errorOutcome(`afterToolCall hook failed: ${errorMessage(error)}`);
		}
	};

	const settle = async (index: number, toolCall: ToolCall, startedAt: number, preparation: Preparation) => {
		const outcome = preparation.ready ? await run(toolCall, preparation) : preparation.outcome;
		finish(index, toolCall, outcome, startedAt);
	};

	let running: Promise<void>[] = [];
	for (const [index, toolCall] of toolCalls.entries()) {
		const barrier = mode === "sequential" || toolsByName.get(toolCall.name)?.executionMode === "sequential";
		if (barrier) {
			await Promise.all(running);
			running = [];
		}
		const startedAt = Date.now();
		emit({ type: "tool_execution_start", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments });
		if (signal?.aborted) {
			finish(index, toolCall, abortedBeforeStart(toolCall.name), startedAt);
			continue;
		}
		const preparation = await prepare(toolCall);
		if (signal?.aborted && preparation.ready) {
			finish(index, toolCall, abortedBeforeStart(toolCall.name), startedAt);
			continue;
		}
		const task = settle(index, toolCall, startedAt, preparation);
		if (barrier) await task;
		else running.push(task);
	}
	await Promise.all(running);
	return { messages, terminate };
}
