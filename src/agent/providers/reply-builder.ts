import { createAssistantMessage } from "../messages.js";
import type {
	AssistantBlockEvent,
	AssistantContent,
	AssistantMessage,
	AssistantMessageEvent,
	Model,
	StopReason,
	ToolCall,
	Usage,
} from "../types.js";
import { parsePartialJson, parseToolArguments } from "./partial-json.js";

type BlockKind = "text" | "thinking" | "toolcall";

function kindOf(block: AssistantContent): BlockKind {
	return block.type === "toolCall" ? "toolcall" : block.type;
}

/**
 * Builds an assistant message from a provider's stream and queues the matching events, so that
 * both providers emit the same event sequence. Drain the queue after each chunk.
 */
export class ReplyBuilder {
	/** The message being built. */
	readonly message: AssistantMessage;
	private readonly queue: AssistantMessageEvent[] = [];
	private readonly rawArguments = new Map<number, string>();
	private readonly open = new Set<number>();
	private started = false;

	constructor(model: Pick<Model, "provider" | "id">) {
		this.message = createAssistantMessage(model);
	}

	/** Takes the queued events. */
	drain(): AssistantMessageEvent[] {
		return this.queue.splice(0);
	}

	/** True once any content block has been opened. */
	get hasContent(): boolean {
		return this.message.content.length > 0;
	}

	/** Queues the `start` event (once). */
	start(): void {
		if (this.started) return;
		this.started = true;
		this.queue.push({ type: "start", partial: this.message });
	}

	/** Opens a block and returns its index. */
	openBlock(block: AssistantContent, rawArguments = ""): number {
		this.start();
		const index = this.message.content.length;
		this.message.content.push(block);
		this.open.add(index);
		if (block.type === "toolCall") {
			this.rawArguments.set(index, rawArguments);
			if (rawArguments) block.arguments = parsePartialJson(rawArguments);
		}
		this.push(`${kindOf(block)}_start`, index, "");
		return index;
	}

	/** Appends text, thinking, or raw argument JSON to an open block. */
	append(index: number, delta: string): void {
		const block = this.message.content[index];
		if (!block || !this.open.has(index) || delta === "") return;
		if (block.type === "text") block.text += delta;
		else if (block.type === "thinking") block.thinking += delta;
		else {
			const raw = (this.rawArguments.get(index) ?? "") + delta;
			this.rawArguments.set(index, raw);
			block.arguments = parsePartialJson(raw);
		}
		this.push(`${kindOf(block)}_delta`, index, delta);
	}

	/** Sets the signature of a thinking block (Anthropic). */
	setSignature(index: number, signature: string): void {
		const block = this.message.content[index];
		if (block?.type === "thinking") block.signature = (block.signature ?? "") + signature;
	}

	/** Closes a block; a tool call gets its final arguments (the raw string if malformed). */
	closeBlock(index: number): void {
		if (!this.open.delete(index)) return;
		const block = this.message.content[index];
		if (!block) return;
		if (block.type === "toolCall") block.arguments = parseToolArguments(this.rawArguments.get(index) ?? "");
		this.push(`${kindOf(block)}_end`, index, "");
	}

	/** Closes every open block, in order. */
	closeAll(): void {
		for (const index of [...this.open].sort((a, b) => a - b)) this.closeBlock(index);
	}

	/** The tool call at `index`, if that block is one. */
	toolCall(index: number): ToolCall | undefined {
		const block = this.message.content[index];
		return block?.type === "toolCall" ? block : undefined;
	}

	/** Replaces the usage figures, computing the total. */
	setUsage(usage: Omit<Usage, "totalTokens">): void {
		this.message.usage = {
			...usage,
			totalTokens: usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
		};
	}

	/** Closes open blocks and queues `done` with `stopReason`. */
	finish(stopReason: Extract<StopReason, "stop" | "length" | "toolUse">): void {
		this.closeAll();
		this.message.stopReason = stopReason;
		this.queue.push({ type: "done", message: this.snapshot() });
	}

	/** Queues the final `error` event (`error` or `aborted`), keeping what streamed. */
	fail(stopReason: Extract<StopReason, "error" | "aborted">, errorMessage: string): void {
		this.closeAll();
		this.message.stopReason = stopReason;
		this.message.errorMessage = errorMessage;
		this.queue.push({ type: "error", message: this.snapshot() });
	}

	private snapshot(): AssistantMessage {
		return { ...this.message, content: this.message.content.map((block) => ({ ...block })) };
	}

	private push(type: AssistantBlockEvent["type"], contentIndex: number, delta: string): void {
		this.queue.push({ type, contentIndex, delta, partial: this.message });
	}
}
