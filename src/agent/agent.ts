import type { AnyAgentTool, ImageContent } from "../engine/index.js";
import { emitSafely } from "../engine/index.js";
import { agentLoop } from "./agent-loop.js";
import { createUserMessage } from "./messages.js";
import type {
	AgentEndReason,
	AgentEvent,
	AgentEventListener,
	AgentLoopConfig,
	AssistantMessage,
	Message,
	Model,
} from "./types.js";

/** Options of the `Agent` class: the loop configuration plus the initial state. */
export interface AgentOptions extends Omit<AgentLoopConfig, "getSteeringMessages" | "getFollowUpMessages"> {
	/** System prompt. Default: none. */
	systemPrompt?: string;
	/** Tools the model may call. Default: none. */
	tools?: AnyAgentTool[];
	/** Transcript to start from. Default: empty. */
	messages?: Message[];
}

/** A snapshot of an agent's state. */
export interface AgentState {
	/** System prompt. */
	systemPrompt: string | undefined;
	/** The model in use. */
	model: Model;
	/** Tools the model may call. */
	tools: AnyAgentTool[];
	/** The transcript, including messages of a run in progress. */
	messages: Message[];
	/** True while a run is in progress. */
	isRunning: boolean;
	/** The assistant reply while it streams, else undefined. */
	streamingMessage: AssistantMessage | undefined;
	/** Ids of tool calls that have started and not yet ended. */
	pendingToolCalls: ReadonlySet<string>;
	/** Why the last run ended; undefined before the first run. */
	lastEndReason: AgentEndReason | undefined;
	/** The error of the last run, when it ended with an error. */
	lastError: string | undefined;
}

/** Text, a message, or several messages. */
export type AgentInput = string | Message | Message[];

/**
 * A stateful agent around `agentLoop`: keeps the transcript, runs one prompt at a time, and
 * lets a UI steer the run, queue follow-ups, abort, and listen to events.
 */
export class Agent {
	private readonly options: AgentOptions;
	private systemPrompt: string | undefined;
	private model: Model;
	private tools: AnyAgentTool[];
	private messages: Message[];
	private readonly listeners = new Set<AgentEventListener>();
	private steeringQueue: Message[] = [];
	private followUpQueue: Message[] = [];
	private controller: AbortController | undefined;
	private running: Promise<void> | undefined;
	private streamingMessage: AssistantMessage | undefined;
	private readonly pendingToolCalls = new Set<string>();
	private lastEndReason: AgentEndReason | undefined;
	private lastError: string | undefined;

	constructor(options: AgentOptions) {
		this.options = options;
		this.systemPrompt = options.systemPrompt;
		this.model = options.model;
		this.tools = [...(options.tools ?? [])];
		this.messages = [...(options.messages ?? [])];
	}

	/** A snapshot of the current state. */
	get state(): AgentState {
		return {
			systemPrompt: this.systemPrompt,
			model: this.model,
			tools: [...this.tools],
			messages: [...this.messages],
			isRunning: this.running !== undefined,
			streamingMessage: this.streamingMessage,
			pendingToolCalls: new Set(this.pendingToolCalls),
			lastEndReason: this.lastEndReason,
			lastError: this.lastError,
		};
	}

	/**
	 * Registers a listener for every event; returns a function that removes it. A throwing listener
	 * is ignored. Listeners run while the run is still in progress (also for `agent_end`): to
	 * start another run from a listener, await `waitForIdle()` first.
	 */
	subscribe(listener: AgentEventListener): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	/**
	 * Adds the input to the transcript and runs the loop until it ends. Resolves with the messages
	 * the run added; never rejects for a failed run (see `state.lastError` and `agent_end`).
	 * Throws if a run is already in progress — use `steer` or `followUp` then.
	 */
	prompt(input: AgentInput, images?: readonly ImageContent[]): Promise<Message[]> {
		const prompts =
			typeof input === "string" ? [createUserMessage(input, images)] : Array.isArray(input) ? input : [input];
		return this.run(prompts, "prompt");
	}

	/**
	 * Runs the loop from the transcript as it is, without a new prompt (e.g. after an error, or
	 * when the last message is a tool result). Throws if a run is in progress.
	 */
	continue(): Promise<Message[]> {
		return this.run([], "continue");
	}

	/** Queues a message to inject after the current tool batch (or before the next request). */
	steer(input: string | Message): void {
		this.steeringQueue.push(typeof input === "string" ? createUserMessage(input) : input);
	}

	/** Queues a message to continue with when the agent would otherwise stop. */
	followUp(input: string | Message): void {
		this.followUpQueue.push(typeof input === "string" ? createUserMessage(input) : input);
	}

	/** Drops queued steering and follow-up messages. */
	clearQueues(): void {
		this.steeringQueue = [];
		this.followUpQueue = [];
	}

	/** Cancels the run in progress: the current request or tool batch stops, no new one starts. */
	abort(): void {
		this.controller?.abort();
	}

	/** Resolves when no run is in progress. */
	async waitForIdle(): Promise<void> {
		while (this.running) await this.running;
	}

	/** Replaces the model; takes effect with the next run (`prompt` or `continue`). */
	setModel(model: Model): void {
		this.model = model;
	}

	/** Replaces the system prompt; takes effect with the next run. */
	setSystemPrompt(systemPrompt: string | undefined): void {
		this.systemPrompt = systemPrompt;
	}

	/** Replaces the tools; takes effect with the next run. */
	setTools(tools: AnyAgentTool[]): void {
		this.tools = [...tools];
	}

	/** Replaces the transcript. Throws while a run is in progress. */
	replaceMessages(messages: Message[]): void {
		this.assertIdle("replaceMessages");
		this.messages = [...messages];
	}

	/** Clears the transcript, queues and last error. Throws while a run is in progress. */
	reset(): void {
		this.assertIdle("reset");
		this.messages = [];
		this.clearQueues();
		this.lastEndReason = undefined;
		this.lastError = undefined;
	}

	private assertIdle(action: string): void {
		if (this.running) {
			throw new Error(`Agent.${action}() is not allowed while a run is in progress; await waitForIdle() first.`);
		}
	}

	private run(prompts: Message[], action: string): Promise<Message[]> {
		this.assertIdle(action);
		const controller = new AbortController();
		this.controller = controller;
		let added: Message[] = [];
		const run = (async () => {
			const stream = agentLoop(
				prompts,
				{ systemPrompt: this.systemPrompt, messages: [...this.messages], tools: [...this.tools] },
				{
					...this.options,
					model: this.model,
					getSteeringMessages: () => this.takeQueue("steering"),
					getFollowUpMessages: () => this.takeQueue("followUp"),
				},
				controller.signal,
			);
			for await (const event of stream) this.handle(event);
			added = await stream.result();
		})();
		const settled = run.finally(() => {
			this.running = undefined;
			this.controller = undefined;
			this.streamingMessage = undefined;
			this.pendingToolCalls.clear();
		});
		this.running = settled.then(
			() => undefined,
			() => undefined,
		);
		return settled.then(
			() => added,
			() => added,
		);
	}

	private takeQueue(kind: "steering" | "followUp"): Message[] {
		if (kind === "steering") {
			const taken = this.steeringQueue;
			this.steeringQueue = [];
			return taken;
		}
		// One follow-up at a time, so each gets its own answer.
		const next = this.followUpQueue.shift();
		return next ? [next] : [];
	}

	private handle(event: AgentEvent): void {
		switch (event.type) {
			case "message_start":
				if (event.message.role === "assistant") this.streamingMessage = event.message;
				break;
			case "message_update":
				this.streamingMessage = event.message;
				break;
			case "message_end":
				if (event.message.role === "assistant") this.streamingMessage = undefined;
				this.messages.push(event.message);
				break;
			case "tool_execution_start":
				this.pendingToolCalls.add(event.toolCallId);
				break;
			case "tool_execution_end":
				this.pendingToolCalls.delete(event.toolCallId);
				break;
			case "agent_end":
				this.lastEndReason = event.reason;
				this.lastError = event.reason === "error" ? event.errorMessage : undefined;
				break;
		}
		for (const listener of this.listeners) emitSafely(listener, event);
	}
}
