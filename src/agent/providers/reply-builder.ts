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
import { PartialJsonScanner, parseToolArguments } from "./partial-json.js";

/** Argument JSON up to this many characters is re-parsed on every delta. */
const PARSE_EVERY_DELTA_BELOW = 8192;

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
	private readonly scanners = new Map<number, PartialJsonScanner>();
	private readonly parsedLength = new Map<number, number>();
	private readonly open = new Set<number>();
	private started = false;
	private characters = 0;

	constructor(model: Pick<Model, "provider" | "id">) {
		this.message = createAssistantMessage(model);
	}

	/** Takes the queued events. */
	drain(): AssistantMessageEvent[] {
		return this.queue.splice(0);
	}

	/** Characters of text, thinking and tool-call arguments received so far (what the message holds). */
	get receivedCharacters(): number {
		return this.characters;
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
			const scanner = new PartialJsonScanner();
			this.scanners.set(index, scanner);
			if (rawArguments) {
				this.characters += rawArguments.length;
				scanner.push(rawArguments);
				block.arguments = scanner.value();
			}
		}
		this.push(`${kindOf(block)}_start`, index, "");
		return index;
	}

	/** Appends text, thinking, or raw argument JSON to an open block. */
	append(index: number, delta: string): void {
		const block = this.message.content[index];
		if (!block || !this.open.has(index) || delta === "") return;
		this.characters += delta.length;
		if (block.type === "text") block.text += delta;
		else if (block.type === "thinking") block.thinking += delta;
		else {
			const scanner = this.scanners.get(index) ?? new PartialJsonScanner();
			this.scanners.set(index, scanner);
			scanner.push(delta);
			const length = scanner.received.length;
			// Each read parses the whole prefix, which is quadratic over thousands of deltas (a large
			// write); beyond a few KB, read again only after 25% growth.
			const parsedLength = this.parsedLength.get(index) ?? 0;
			if (length <= PARSE_EVERY_DELTA_BELOW || length - parsedLength >= parsedLength / 4) {
				block.arguments = scanner.value();
				this.parsedLength.set(index, length);
			}
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
		if (block.type === "toolCall") block.arguments = parseToolArguments(this.scanners.get(index)?.received ?? "");
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
