import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import {
	DEFAULT_MAX_MESSAGE_BYTES,
	messageTooDeepText,
	messageTooLargeText,
	nestedDeeperThan,
} from "../message-limit.js";
import { type BoundedLine, BoundedLineSplitter } from "./bounded-lines.js";
import { type JsonRpcId, TopLevelIdScanner } from "./top-level-id.js";

/** Options of `BoundedStdioServerTransport`. */
export interface BoundedStdioOptions {
	/** The largest message read, in bytes; a longer line is dropped and answered with an error. Default: 8 MiB. */
	maxMessageBytes?: number;
}

/** The id of a parsed line that is not a valid message, when it has a usable one. */
function idOf(value: unknown): JsonRpcId | null {
	if (typeof value !== "object" || value === null) return null;
	const { id } = value as { id?: unknown };
	return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/**
 * The server side of MCP over stdio (newline-delimited JSON-RPC), bounded: a line over
 * `maxMessageBytes` is never buffered (it is dropped as it arrives, memory stays at the limit) and
 * is answered with `-32600` under its own id; a line that is not JSON gets `-32700 Parse error`,
 * JSON that is not a JSON-RPC message `-32600 Invalid Request`. The server lives on and keeps
 * serving the next line. It replaces the SDK's `StdioServerTransport`, which buffers a line up to
 * 10 MB, then closes the whole transport on a longer one, and leaves a malformed line unanswered.
 */
export class BoundedStdioServerTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;

	private readonly maxMessageBytes: number;
	private readonly splitter: BoundedLineSplitter;
	private started = false;
	private closed = false;
	/** Resolves when stdout drains; shared by every send waiting for it. */
	private drained: Promise<void> | undefined;

	constructor(
		private readonly stdin: Readable,
		private readonly stdout: Writable,
		options: BoundedStdioOptions = {},
	) {
		this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
		this.splitter = new BoundedLineSplitter(this.maxMessageBytes, (line) => this.receive(line));
	}

	private readonly onData = (chunk: Buffer | string) => {
		this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
	};
	/** The client closed our stdin: that means "exit", after the last line. */
	private readonly onEnd = () => {
		if (this.closed) return;
		this.splitter.end();
		void this.close();
	};
	private readonly onStreamError = (error: Error) => this.onerror?.(error);

	/** Starts reading stdin. */
	async start(): Promise<void> {
		if (this.started) throw new Error("BoundedStdioServerTransport already started.");
		this.started = true;
		this.stdin.on("data", this.onData);
		this.stdin.on("end", this.onEnd);
		this.stdin.on("close", this.onEnd);
		this.stdin.on("error", this.onStreamError);
	}

	/** Writes one message as a line, waiting while stdout is full. */
	async send(message: JSONRPCMessage): Promise<void> {
		if (this.closed) return;
		while (this.drained) await this.drained;
		if (this.stdout.write(`${JSON.stringify(message)}\n`)) return;
		this.drained ??= new Promise<void>((resolve) => {
			const done = () => {
				this.stdout.off("drain", done);
				this.stdout.off("close", done);
				this.drained = undefined;
				resolve();
			};
			this.stdout.on("drain", done);
			this.stdout.on("close", done);
		});
		await this.drained;
	}

	/** Stops reading stdin and reports the close. */
	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.stdin.off("data", this.onData);
		this.stdin.off("end", this.onEnd);
		this.stdin.off("close", this.onEnd);
		this.stdin.off("error", this.onStreamError);
		if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
		this.onclose?.();
	}

	private receive(line: BoundedLine): void {
		if (line.kind === "oversized") {
			const message = messageTooLargeText(this.maxMessageBytes, line.bytes);
			this.onerror?.(new Error(`dropped a message of ${line.bytes} bytes (over the limit of ${this.maxMessageBytes})`));
			this.answerError(line.id ?? null, ErrorCode.InvalidRequest, message);
			return;
		}
		const text = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
		if (text.trim() === "") return;
		if (nestedDeeperThan(text)) {
			const scanner = new TopLevelIdScanner();
			scanner.feed(Buffer.from(text));
			this.answerError(scanner.id ?? null, ErrorCode.InvalidRequest, messageTooDeepText());
			return;
		}
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			this.answerError(null, ErrorCode.ParseError, `Parse error: the line is not valid JSON (${reason}).`);
			return;
		}
		const parsed = JSONRPCMessageSchema.safeParse(value);
		if (!parsed.success) {
			this.answerError(
				idOf(value),
				ErrorCode.InvalidRequest,
				'Invalid Request: the line is JSON but not one JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a method, or a result or error with an id).',
			);
			return;
		}
		this.onmessage?.(parsed.data);
	}

	private answerError(id: JsonRpcId | null, code: number, message: string): void {
		// The SDK's message type has no null id, but JSON-RPC answers an unknown id with null.
		const answer = { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
		this.send(answer).catch((error: unknown) => this.onerror?.(error as Error));
	}
}
