import type { Writable } from "node:stream";
import type { AgentEvent } from "../../agent/index.js";
import type { Style } from "./style.js";
import { ToolCallsView } from "./tool-calls-view.js";
import { WaitingLine } from "./waiting-line.js";

/** Options of `EventRenderer`. */
export interface EventRendererOptions {
	/** Where everything goes. */
	stream: Writable;
	/** A terminal: redraw running tool calls in place with a spinner. */
	live: boolean;
	/** Colours (or none). */
	style: Style;
	/** Current terminal width in columns. Default: 80. */
	columns?: () => number;
	/** Stream the assistant's text as it arrives (interactive). Default: false (print mode keeps it for stdout). */
	assistantText?: boolean;
	/** Stream the model's thinking, dimmed. Default: false. */
	thinking?: boolean;
	/** A short preview of each finished call under its line (see `ToolCallsViewOptions.previews`). Default: false. */
	previews?: boolean;
}

/**
 * Turns agent events into terminal output: streamed assistant text, one line per tool call,
 * error replies. Used by the interactive session (stdout) and by print mode (progress on stderr).
 */
export class EventRenderer {
	private readonly options: EventRendererOptions;
	private readonly toolCalls: ToolCallsView;
	private readonly waiting: WaitingLine | undefined;
	/** What is being streamed right now, so a switch (thinking → text) starts a new line. */
	private streaming: "text" | "thinking" | undefined;
	private atLineStart = true;

	constructor(options: EventRendererOptions) {
		this.options = options;
		this.toolCalls = new ToolCallsView({
			stream: options.stream,
			live: options.live,
			style: options.style,
			columns: options.columns,
			previews: options.previews ?? false,
		});
		this.waiting = options.live ? new WaitingLine({ stream: options.stream, style: options.style }) : undefined;
	}

	/** Renders one event. */
	handle(event: AgentEvent): void {
		switch (event.type) {
			case "turn_start":
				this.toolCalls.commit();
				this.endStreaming();
				this.waiting?.start("waiting for the model");
				return;
			case "message_update": {
				const update = event.assistantMessageEvent;
				if (update.type === "text_delta" && this.options.assistantText) this.stream("text", update.delta);
				else if (update.type === "thinking_delta" && this.options.thinking) this.stream("thinking", update.delta);
				return;
			}
			case "message_end": {
				if (event.message.role !== "assistant") return;
				this.waiting?.stop();
				this.endStreaming();
				const { stopReason, errorMessage, content } = event.message;
				if (stopReason === "error")
					this.line(this.options.style.red(`✗ ${errorMessage ?? "The model request failed."}`));
				else if (stopReason === "length" && !content.some((block) => block.type === "toolCall"))
					// Calls in a cut-off reply are answered for the model; a cut-off answer would pass silently.
					this.line(this.options.style.yellow("The reply was cut off at the model's output token limit."));
				else if (
					stopReason === "stop" &&
					!content.some((block) => block.type === "toolCall" || (block.type === "text" && block.text.trim() !== ""))
				)
					// Otherwise an empty answer looks like the program hung or lost it.
					this.line(this.options.style.yellow("The model ended its turn without an answer (empty reply)."));
				return;
			}
			case "tool_execution_start":
				this.waiting?.stop();
				this.endStreaming();
				this.toolCalls.start(event.toolCallId, event.toolName, event.args, event.parentToolCallId);
				return;
			case "tool_execution_update":
				this.toolCalls.update(event.toolCallId, event.partialResult);
				return;
			case "tool_execution_end":
				this.toolCalls.end(event.toolCallId, event);
				return;
			case "agent_end":
				this.waiting?.stop();
				this.toolCalls.commit();
				this.endStreaming();
				if (event.reason === "maxTurns") {
					this.line(this.options.style.yellow("Stopped: the turn limit was reached (raise it with --max-turns)."));
				}
				return;
			default:
				return;
		}
	}

	/** Clears the live lines (spinners) off the bottom of the screen before a question is asked there. */
	pause(): void {
		this.waiting?.stop();
		this.endStreaming();
		this.toolCalls.pause();
	}

	/** Draws the running tool calls again after a question was answered. */
	resume(): void {
		this.toolCalls.resume();
	}

	/** Stops timers; call when the session ends. */
	dispose(): void {
		this.waiting?.stop();
		this.toolCalls.dispose();
	}

	private stream(kind: "text" | "thinking", delta: string): void {
		if (delta === "") return;
		this.waiting?.stop();
		this.toolCalls.commit();
		if (this.streaming !== kind && !this.atLineStart) this.options.stream.write("\n");
		this.streaming = kind;
		this.options.stream.write(kind === "thinking" ? this.options.style.dim(delta) : delta);
		this.atLineStart = delta.endsWith("\n");
	}

	private endStreaming(): void {
		if (!this.atLineStart) this.options.stream.write("\n");
		this.atLineStart = true;
		this.streaming = undefined;
	}

	private line(text: string): void {
		this.endStreaming();
		this.options.stream.write(`${text}\n`);
	}
}
