import type {
	AnyAgentTool,
	ExecutionMode,
	ImageContent,
	TextContent,
	ToolCall,
	ToolDefinition,
	ToolExecutionEvent,
	ToolHooks,
	ToolResultMessage,
	ToolSession,
} from "../engine/index.js";

export type { ToolCall, ToolResultMessage } from "../engine/index.js";

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/** What a person (or a program acting as one) says to the model. */
export interface UserMessage {
	role: "user";
	/** Plain text, or text and image blocks. */
	content: string | (TextContent | ImageContent)[];
	/** Milliseconds since the epoch when the message was created. */
	timestamp: number;
}

/**
 * The model's visible reasoning. Anthropic signs thinking blocks and requires them back
 * unchanged in later requests, so the signature travels with the text.
 */
export interface ThinkingContent {
	type: "thinking";
	/** The reasoning text (empty for a redacted block). */
	thinking: string;
	/** Provider signature (Anthropic), or the opaque data of a redacted block. */
	signature?: string;
	/** True for a block the provider redacted; `signature` then holds its opaque data. Default: false. */
	redacted?: boolean;
}

/** One block of an assistant message. */
export type AssistantContent = TextContent | ThinkingContent | ToolCall;

/** Token counts of one model reply. Zero where the provider did not report a figure. */
export interface Usage {
	/** Prompt tokens billed at the normal rate (excludes cache reads and writes). */
	inputTokens: number;
	/** Generated tokens, including thinking. */
	outputTokens: number;
	/** Prompt tokens read from the provider's cache. */
	cacheReadTokens: number;
	/** Prompt tokens written to the provider's cache. */
	cacheWriteTokens: number;
	/** Sum of the four figures above. */
	totalTokens: number;
}

/**
 * Why a reply ended. `stop`: the model finished; `length`: the output token limit cut it off;
 * `toolUse`: it wants tool results; `error`: the request failed (see `errorMessage`);
 * `aborted`: the caller cancelled it.
 */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** A model reply (complete, or partial while it streams). */
export interface AssistantMessage {
	role: "assistant";
	/** Text, thinking and tool-call blocks in the order the model produced them. */
	content: AssistantContent[];
	/** Provider that produced the reply, e.g. `openai` or `anthropic`. */
	provider: string;
	/** Model id that produced the reply. */
	model: string;
	/** Token counts. */
	usage: Usage;
	/** Why the reply ended. */
	stopReason: StopReason;
	/** A readable explanation when `stopReason` is `error` or `aborted`. */
	errorMessage?: string;
	/** Milliseconds since the epoch when the reply started. */
	timestamp: number;
}

/** Any message of a transcript. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

// ---------------------------------------------------------------------------------------------
// Providers
// ---------------------------------------------------------------------------------------------

/**
 * Which wire protocol a model speaks. `openai-completions` is OpenAI's Chat Completions API,
 * also spoken by Ollama, vLLM, llama.cpp's server, LM Studio and OpenRouter.
 */
export type ModelApi = "openai-completions" | "anthropic-messages";

/** A model to talk to, and where. */
export interface Model {
	/**
	 * Provider name, e.g. `openai`, `anthropic`, `ollama`, `openrouter`. Chooses the API key
	 * (environment variable) and, unless `api` is set, the protocol: `anthropic` speaks
	 * Anthropic Messages, anything else OpenAI Chat Completions.
	 */
	provider: string;
	/** Model id as the API expects it, e.g. `gpt-4.1` or `claude-sonnet-4-5`. */
	id: string;
	/** Wire protocol. Default: derived from `provider`. */
	api?: ModelApi;
	/** API base URL (e.g. `http://127.0.0.1:11434/v1` for Ollama). Default: the provider's official URL. */
	baseUrl?: string;
	/** Output token limit per reply. Default: 8192 for Anthropic (required there), unset for OpenAI. */
	maxTokens?: number;
}

/** What a model request carries. */
export interface ModelContext {
	/** System prompt. Default: none. */
	systemPrompt?: string;
	/** The transcript so far. */
	messages: Message[];
	/** Tools the model may call. Default: none. */
	tools?: ToolDefinition[];
}

/** Per-request options of a `StreamFn`. */
export interface StreamOptions {
	/** Cancels the request; the stream then ends with a `stopReason: "aborted"` message. */
	signal?: AbortSignal;
	/** API key. Default: the provider's environment variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …). */
	apiKey?: string;
	/** Output token limit. Default: `model.maxTokens`. */
	maxTokens?: number;
	/** Sampling temperature. Default: the provider's default. */
	temperature?: number;
	/**
	 * Thinking budget in tokens (Anthropic extended thinking); 0 or unset disables it.
	 * OpenAI-compatible servers that stream `reasoning_content` need no setting. Default: unset.
	 */
	thinkingBudgetTokens?: number;
}

/** A reply has started; `partial` is the (empty) message being built. */
export interface AssistantStartEvent {
	type: "start";
	partial: AssistantMessage;
}

/** A content block started, grew or finished. `contentIndex` points into `partial.content`. */
export interface AssistantBlockEvent {
	type:
		| "text_start"
		| "text_delta"
		| "text_end"
		| "thinking_start"
		| "thinking_delta"
		| "thinking_end"
		| "toolcall_start"
		| "toolcall_delta"
		| "toolcall_end";
	/** Index of the block in `partial.content`. */
	contentIndex: number;
	/** The new text (text, thinking, or raw tool-call argument JSON); empty on start and end events. */
	delta: string;
	/** The message so far. For tool calls, `arguments` holds the best parse of the partial JSON. */
	partial: AssistantMessage;
}

/** The reply finished normally (`stop`, `length` or `toolUse`). Always the last event. */
export interface AssistantDoneEvent {
	type: "done";
	message: AssistantMessage;
}

/** The reply failed or was aborted (`error` or `aborted`). Always the last event. */
export interface AssistantErrorEvent {
	type: "error";
	message: AssistantMessage;
}

/** What a `StreamFn` yields while a reply streams. */
export type AssistantMessageEvent =
	| AssistantStartEvent
	| AssistantBlockEvent
	| AssistantDoneEvent
	| AssistantErrorEvent;

/**
 * A model provider: sends one request and streams the reply. The iterable must never throw
 * and must end with exactly one `done` or `error` event carrying the final message; failures
 * (network, HTTP status, bad key, abort) become a message with `stopReason` `error` or `aborted`
 * and a readable `errorMessage`. The agent loop still guards against providers that break this.
 */
export type StreamFn = (
	model: Model,
	context: ModelContext,
	options?: StreamOptions,
) => AsyncIterable<AssistantMessageEvent>;

// ---------------------------------------------------------------------------------------------
// Agent loop
// ---------------------------------------------------------------------------------------------

/** The agent's working set: system prompt, transcript, tools. */
export interface AgentContext {
	/** System prompt. Default: none. */
	systemPrompt?: string;
	/** The transcript so far (not modified by `agentLoop`; new messages are returned). */
	messages: Message[];
	/** Tools the model may call. Default: none. */
	tools?: AnyAgentTool[];
}

/** What `shouldStopAfterTurn` sees. */
export interface TurnInfo {
	/** 1-based number of the turn that just ended. */
	turn: number;
	/** The assistant reply of the turn. */
	message: AssistantMessage;
	/** The tool results of the turn (empty when no tools ran). */
	toolResults: ToolResultMessage[];
	/** Every message in the context, including this turn's. */
	messages: Message[];
}

/** Configuration of `agentLoop` (and the `Agent` class). */
export interface AgentLoopConfig extends ToolHooks {
	/** The model to talk to. */
	model: Model;
	/** The provider. Default: `streamModel` (OpenAI Chat Completions or Anthropic Messages by `model`). */
	streamFn?: StreamFn;
	/** Per-request options (without `signal` and `apiKey`, which the loop supplies). Default: none. */
	streamOptions?: Omit<StreamOptions, "signal" | "apiKey">;
	/** `parallel` or `sequential` tool execution, as in `executeToolCalls`. Default: `parallel`. */
	toolExecution?: ExecutionMode;
	/**
	 * The tools each model request carries, asked before every request (tool search: the core set,
	 * the search tool and the tools found so far). Calls may still name any tool of the context.
	 * Default: every tool of the context.
	 */
	requestTools?: () => readonly AnyAgentTool[];
	/**
	 * Rewrites the messages just before each model request (pruning, compaction, injected
	 * context). The transcript itself is not changed. A throw ends the run with an error message.
	 * Default: messages unchanged.
	 */
	transformContext?: (messages: Message[], signal: AbortSignal | undefined) => Message[] | Promise<Message[]>;
	/**
	 * Returns the API key for a provider, called before every request (keys can expire).
	 * Returning undefined falls back to the provider's environment variable. Default: none.
	 */
	getApiKey?: (provider: string) => string | undefined | Promise<string | undefined>;
	/**
	 * Called after each turn that ran tools; returning true ends the run there. A throw ends the
	 * run too. Default: never stops early.
	 */
	shouldStopAfterTurn?: (turn: TurnInfo) => boolean | Promise<boolean>;
	/** Most model requests in one run; reaching it ends the run (tool results already added). Default: 100. */
	maxTurns?: number;
	/**
	 * Messages to inject after the current tool batch (steering), polled after each batch and
	 * before each model request. Default: none.
	 */
	getSteeringMessages?: () => Message[] | Promise<Message[]>;
	/** Messages to continue with when the agent would otherwise stop. Default: none. */
	getFollowUpMessages?: () => Message[] | Promise<Message[]>;
	/** Least time between two `tool_execution_update` events of one call, in ms. Default: 100. */
	toolUpdateIntervalMs?: number;
	/** Most bytes of result text one batch of tool calls returns, shared fairly (see `executeToolCalls`). Default: none. */
	batchOutputBudget?: number;
	/** After an abort, how long a running tool may take to stop before it is settled as aborted, in ms. Default: 2000. */
	abortGraceMs?: number;
	/**
	 * The session the run's tool calls belong to. Default: one per run, ended just before
	 * `agent_end`, so a background job the run started is killed when the run ends. Pass a
	 * longer-lived session (`createToolSession()`) to keep jobs across runs, and end it yourself.
	 */
	session?: ToolSession;
}

/** Why a run ended. */
export type AgentEndReason = "stop" | "error" | "aborted" | "maxTurns" | "terminated" | "stoppedAfterTurn";

/** A run started. */
export interface AgentStartEvent {
	type: "agent_start";
}

/** A turn (one model request plus the tool calls it asked for) started. */
export interface TurnStartEvent {
	type: "turn_start";
	/** 1-based turn number within the run. */
	turn: number;
}

/** A message entered the transcript (prompts, tool results) or started streaming (assistant). */
export interface MessageStartEvent {
	type: "message_start";
	message: Message;
}

/** An assistant reply grew. */
export interface MessageUpdateEvent {
	type: "message_update";
	/** The reply so far. */
	message: AssistantMessage;
	/** The provider event that caused the update. */
	assistantMessageEvent: AssistantMessageEvent;
}

/** A message is final. */
export interface MessageEndEvent {
	type: "message_end";
	message: Message;
}

/** A turn ended. */
export interface TurnEndEvent {
	type: "turn_end";
	/** 1-based turn number within the run. */
	turn: number;
	/** The assistant reply of the turn. */
	message: AssistantMessage;
	/** Tool results of the turn, in call order. */
	toolResults: ToolResultMessage[];
}

/** A run ended. Always the last event of a run, whatever happened. */
export interface AgentEndEvent {
	type: "agent_end";
	/** Every message the run added (prompts, replies, tool results), in order. */
	messages: Message[];
	/** Why the run ended. */
	reason: AgentEndReason;
	/** A readable explanation when `reason` is `error`. */
	errorMessage?: string;
}

/** Everything an agent run reports. */
export type AgentEvent =
	| AgentStartEvent
	| TurnStartEvent
	| MessageStartEvent
	| MessageUpdateEvent
	| MessageEndEvent
	| ToolExecutionEvent
	| TurnEndEvent
	| AgentEndEvent;

/** Receives agent events. A listener that throws is ignored. */
export type AgentEventListener = (event: AgentEvent) => void;

/** What `agentLoop` returns: the events of the run (iterate once) and the new messages. */
export interface AgentEventStream extends AsyncIterable<AgentEvent> {
	/** Resolves with every message the run added, once it has ended. Never rejects. */
	result(): Promise<Message[]>;
}
