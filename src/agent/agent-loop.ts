import type { ToolResultMessage } from "../engine/index.js";
import { createToolSession, errorMessage, executeToolCalls, raceAbort, type ToolSession } from "../engine/index.js";
import { EventStream } from "./event-stream.js";
import { createErrorReply, createSkippedToolResult, toolCallsOf } from "./messages.js";
import { streamModel } from "./providers/index.js";
import type {
	AgentContext,
	AgentEndReason,
	AgentEvent,
	AgentEventStream,
	AgentLoopConfig,
	AssistantMessage,
	AssistantMessageEvent,
	Message,
} from "./types.js";

const DEFAULT_MAX_TURNS = 100;

/** Told to the model for each tool call of a reply that the output token limit cut off. */
export const TRUNCATED_TOOL_CALL_TEXT =
	"Tool call not executed: your reply hit the output token limit, so its arguments may be cut off. " +
	"Send the call again with smaller arguments (for example, write a large file in several smaller edits).";

/** Told to the model for each tool call of a reply that failed or was aborted mid-stream. */
export const INCOMPLETE_TOOL_CALL_TEXT =
	"Tool call not executed: the reply that contained it did not complete (the request failed or was cancelled).";

interface RunOutcome {
	reason: AgentEndReason;
	errorMessage?: string;
}

/**
 * Runs the agent loop: adds `prompts` to the transcript, then alternates model requests and tool
 * batches until the model stops, a tool or hook terminates, `shouldStopAfterTurn` says so, the
 * turn bound is reached, an error reply arrives, or `signal` aborts. Steering messages are added
 * after each tool batch; follow-up messages continue a run that would stop.
 *
 * Returns the event stream at once; the run proceeds whether or not it is iterated. The stream
 * always ends with `agent_end`, whatever throws. `context.messages` is not modified: `result()`
 * resolves with the messages the run added. With no prompts, the loop continues from the
 * transcript as it is (e.g. after tool results or a steering message).
 */
export function agentLoop(
	prompts: readonly Message[],
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
): AgentEventStream {
	const stream = new EventStream<AgentEvent, Message[]>();
	const added: Message[] = [];
	const emit = (event: AgentEvent) => stream.push(event);
	void (async () => {
		// A run is a session unless the caller passed a longer one: what it left running ends with it.
		const ownSession = config.session ? undefined : createToolSession();
		const session = config.session ?? ownSession;
		let outcome: RunOutcome;
		try {
			outcome = await runLoop({ prompts, context, config, signal, emit, added, session });
		} catch (error) {
			outcome = { reason: "error", errorMessage: `Agent loop failed: ${errorMessage(error)}` };
		}
		await ownSession?.end();
		emit({ type: "agent_end", messages: [...added], reason: outcome.reason, errorMessage: outcome.errorMessage });
		stream.end([...added]);
	})();
	return stream;
}

interface RunState {
	prompts: readonly Message[];
	context: AgentContext;
	config: AgentLoopConfig;
	signal: AbortSignal | undefined;
	emit: (event: AgentEvent) => void;
	/** Messages this run added, in order. */
	added: Message[];
	/** The session the run's tool calls belong to. */
	session: ToolSession | undefined;
}

async function runLoop(state: RunState): Promise<RunOutcome> {
	const { context, config, signal, emit } = state;
	const messages = [...context.messages];
	const maxTurns = config.maxTurns ?? DEFAULT_MAX_TURNS;
	const add = (message: Message) => {
		messages.push(message);
		state.added.push(message);
		emit({ type: "message_start", message });
		emit({ type: "message_end", message });
	};
	const addAll = (list: readonly Message[]) => {
		for (const message of list) add(message);
	};

	emit({ type: "agent_start" });
	addAll(state.prompts);
	let turn = 0;
	while (true) {
		if (signal?.aborted) return { reason: "aborted" };
		if (turn >= maxTurns) return { reason: "maxTurns" };
		addAll(await poll(config.getSteeringMessages));
		turn++;
		emit({ type: "turn_start", turn });
		const reply = await requestReply(state, messages);
		messages.push(reply);
		state.added.push(reply);
		emit({ type: "message_end", message: reply });

		const toolCalls = toolCallsOf(reply);
		let toolResults: ToolResultMessage[] = [];
		let terminate = false;
		if (reply.stopReason === "error" || reply.stopReason === "aborted") {
			toolResults = toolCalls.map((call) => createSkippedToolResult(call, INCOMPLETE_TOOL_CALL_TEXT));
		} else if (reply.stopReason === "length") {
			toolResults = toolCalls.map((call) => createSkippedToolResult(call, TRUNCATED_TOOL_CALL_TEXT));
		} else if (toolCalls.length > 0) {
			try {
				const batch = await executeToolCalls({
					tools: context.tools ?? [],
					toolCalls,
					toolExecution: config.toolExecution,
					beforeToolCall: config.beforeToolCall,
					afterToolCall: config.afterToolCall,
					signal,
					onEvent: emit,
					updateIntervalMs: config.toolUpdateIntervalMs,
					abortGraceMs: config.abortGraceMs,
					session: state.session,
					...(config.batchOutputBudget !== undefined ? { batchOutputBudget: config.batchOutputBudget } : {}),
				});
				toolResults = batch.messages;
				terminate = batch.terminate;
			} catch (error) {
				// The engine settles every call itself; this only guards the one-result-per-call promise.
				const text = `Tool call not executed: the tool runner failed (${errorMessage(error)}).`;
				toolResults = toolCalls.map((call) => createSkippedToolResult(call, text));
			}
		}
		addAll(toolResults);
		emit({ type: "turn_end", turn, message: reply, toolResults });

		if (reply.stopReason === "error") return { reason: "error", errorMessage: reply.errorMessage };
		if (reply.stopReason === "aborted" || signal?.aborted) return { reason: "aborted" };
		if (terminate) return { reason: "terminated" };
		if (config.shouldStopAfterTurn && toolResults.length > 0) {
			const stop = await config.shouldStopAfterTurn({ turn, message: reply, toolResults, messages: [...messages] });
			if (stop) return { reason: "stoppedAfterTurn" };
		}
		// A truncated reply with tool calls goes back to the model so it can retry smaller.
		if (toolResults.length > 0) continue;
		const steering = await poll(config.getSteeringMessages);
		if (steering.length > 0) {
			addAll(steering);
			continue;
		}
		const followUps = await poll(config.getFollowUpMessages);
		if (followUps.length === 0) return { reason: "stop" };
		addAll(followUps);
	}
}

async function poll(source: (() => Message[] | Promise<Message[]>) | undefined): Promise<Message[]> {
	if (!source) return [];
	return [...(await source())];
}

/**
 * Sends one model request and streams the reply into events. Never throws: a provider that
 * throws, ends without a final message, or ignores an abort still yields a final message.
 */
async function requestReply(state: RunState, messages: Message[]): Promise<AssistantMessage> {
	const { config, signal, emit } = state;
	const model = config.model;
	let partial: AssistantMessage | undefined;
	let started = false;
	const finish = (reply: AssistantMessage): AssistantMessage => {
		if (!started) emit({ type: "message_start", message: reply });
		return reply;
	};
	try {
		const transformed = config.transformContext ? await config.transformContext([...messages], signal) : messages;
		const apiKey = config.getApiKey ? await config.getApiKey(model.provider) : undefined;
		if (signal?.aborted) {
			return finish(createErrorReply({ model, stopReason: "aborted", errorMessage: "The request was aborted." }));
		}
		const streamFn = config.streamFn ?? streamModel;
		const iterable = streamFn(
			model,
			{
				systemPrompt: state.context.systemPrompt,
				messages: [...transformed],
				tools: config.requestTools ? [...config.requestTools()] : (state.context.tools ?? []),
			},
			{ ...config.streamOptions, signal, apiKey },
		);
		const iterator = iterable[Symbol.asyncIterator]();
		try {
			while (true) {
				const next = await nextOrAbort(iterator, signal, config.abortGraceMs ?? 2000);
				if (next === "aborted") {
					return finish(
						createErrorReply({ model, partial, stopReason: "aborted", errorMessage: "The request was aborted." }),
					);
				}
				if (next.done) break;
				const event: AssistantMessageEvent = next.value;
				if (event.type === "done" || event.type === "error") return finish(event.message);
				partial = event.partial;
				if (!started) {
					started = true;
					emit({ type: "message_start", message: event.partial });
				}
				if (event.type !== "start") {
					emit({ type: "message_update", message: event.partial, assistantMessageEvent: event });
				}
			}
		} finally {
			// Closing the stream runs its cleanup (timers, the request): a provider's stream left
			// open at its final event would keep a script's process alive after the run.
			void Promise.resolve(iterator.return?.()).catch(() => {});
		}
		return finish(
			createErrorReply({ model, partial, errorMessage: "The model stream ended without a final message." }),
		);
	} catch (error) {
		return finish(createErrorReply({ model, partial, errorMessage: errorMessage(error) }));
	}
}

/** The next event, or "aborted" when `signal` aborts and the provider has not answered `graceMs` later. */
function nextOrAbort<T>(
	iterator: AsyncIterator<T>,
	signal: AbortSignal | undefined,
	graceMs: number,
): Promise<IteratorResult<T> | "aborted"> {
	return raceAbort(iterator.next(), { signal, graceMs, abandon: () => "aborted" as const });
}
