import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach } from "vitest";

/** One server-sent event. `data` is JSON-encoded unless it is a string. */
export interface SseEvent {
	event?: string;
	data: unknown;
}

/** A scripted HTTP reply. */
export interface ScriptedHttpReply {
	/** HTTP status. Default: 200. */
	status?: number;
	/** Extra response headers (e.g. `retry-after-ms`). */
	headers?: Record<string, string>;
	/** A JSON body (error replies). When set, `events` are ignored. */
	json?: unknown;
	/** Events streamed as `text/event-stream`. */
	events?: SseEvent[];
	/** Pause between events, in ms. Default: 0. */
	eventDelayMs?: number;
	/** After the events, keep the connection open until the client goes away. Default: false. */
	hang?: boolean;
	/** After the events, destroy the socket without ending the response. Default: false. */
	destroy?: boolean;
	/** After the events, send this one again and again until the client goes away (a stream without end). */
	endless?: SseEvent;
}

/** A request the server received, body parsed as JSON. */
export interface RecordedHttpRequest {
	method: string;
	path: string;
	headers: IncomingMessage["headers"];
	// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary wire JSON.
	body: any;
}

/** A running scripted server. */
export interface SseServer {
	/** `http://127.0.0.1:<port>` — for Anthropic. */
	url: string;
	/** `<url>/v1` — for OpenAI-compatible clients. */
	openaiBaseUrl: string;
	/** Requests received, in order. */
	requests: RecordedHttpRequest[];
	/** Appends scripted replies. */
	push(...replies: ScriptedHttpReply[]): void;
	/** Stops the server and drops open connections. */
	close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a real HTTP server on 127.0.0.1 (random port) that answers each request with the next
 * scripted reply — SSE streams in the exact wire format of OpenAI Chat Completions or Anthropic
 * Messages (build them with `openAIStream` / `anthropicStream`), or JSON error bodies — and
 * records every request. Unscripted requests get a 500 JSON error.
 */
export async function startSseServer(replies: ScriptedHttpReply[] = []): Promise<SseServer> {
	const script = [...replies];
	const requests: RecordedHttpRequest[] = [];
	const server = createServer((request, response) => {
		void handle(request, response);
	});
	async function handle(request: IncomingMessage, response: ServerResponse) {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const text = Buffer.concat(chunks).toString("utf8");
		let body: unknown = text;
		try {
			body = text ? JSON.parse(text) : undefined;
		} catch {
			// Keep the raw text.
		}
		requests.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
		const reply = script.shift() ?? {
			status: 500,
			json: { error: { type: "server_error", message: "sse-server: no scripted reply left" } },
		};
		if (reply.json !== undefined) {
			response.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
			response.end(JSON.stringify(reply.json));
			return;
		}
		response.writeHead(reply.status ?? 200, {
			"content-type": "text/event-stream",
			"cache-control": "no-cache",
			connection: "keep-alive",
			...reply.headers,
		});
		for (const event of reply.events ?? []) {
			if (reply.eventDelayMs) await sleep(reply.eventDelayMs);
			if (response.destroyed) return;
			const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
			response.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
		}
		if (reply.endless) {
			const { event, data } = reply.endless;
			const frame = `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
			while (!response.destroyed && !response.writableEnded) {
				// Waits for the client to take what was sent: the server's own memory stays bounded.
				if (!response.write(frame))
					await new Promise((resolve) => response.once("drain", resolve).once("close", resolve));
			}
			return;
		}
		if (reply.destroy) {
			response.socket?.destroy();
			return;
		}
		if (reply.hang) return;
		response.end();
	}
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		openaiBaseUrl: `${url}/v1`,
		requests,
		push: (...more) => {
			script.push(...more);
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * A fresh scripted server for each test of the calling `describe`, closed after it. The returned
 * object forwards to the current test's server, so tests write `server.push(…)` as usual.
 */
export function useSseServer(): SseServer {
	let current: SseServer | undefined;
	beforeEach(async () => {
		current = await startSseServer();
	});
	afterEach(async () => {
		await current?.close();
		current = undefined;
	});
	const get = (): SseServer => {
		if (!current) throw new Error("useSseServer: the server exists only while a test runs.");
		return current;
	};
	return {
		get url() {
			return get().url;
		},
		get openaiBaseUrl() {
			return get().openaiBaseUrl;
		},
		get requests() {
			return get().requests;
		},
		push: (...replies) => get().push(...replies),
		close: () => get().close(),
	};
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions wire format
// ---------------------------------------------------------------------------------------------

/** One step of a scripted OpenAI stream. */
export type OpenAIStep =
	| { text: string }
	| { reasoning: string; field?: "reasoning_content" | "reasoning" }
	| { toolCall: { index: number; id?: string; name?: string; arguments?: string } }
	| { finish: "stop" | "length" | "tool_calls" | "content_filter" }
	| { usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } }
	| { error: { message: string; type?: string } };

/** Builds Chat Completions `chat.completion.chunk` events (ending with `[DONE]`) from steps. */
export function openAIStream(steps: OpenAIStep[], options: { model?: string; done?: boolean } = {}): SseEvent[] {
	const base = {
		id: "chatcmpl-test",
		object: "chat.completion.chunk",
		created: 1_700_000_000,
		model: options.model ?? "test-model",
	};
	const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
		...base,
		choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
	});
	const events: SseEvent[] = [{ data: chunk({ role: "assistant", content: "" }) }];
	for (const step of steps) {
		if ("text" in step) events.push({ data: chunk({ content: step.text }) });
		else if ("reasoning" in step) events.push({ data: chunk({ [step.field ?? "reasoning_content"]: step.reasoning }) });
		else if ("toolCall" in step) {
			const { index, id, name, arguments: args } = step.toolCall;
			const call: Record<string, unknown> = { index, function: { ...(name ? { name } : {}), arguments: args ?? "" } };
			if (id) {
				call.id = id;
				call.type = "function";
			}
			events.push({ data: chunk({ tool_calls: [call] }) });
		} else if ("finish" in step) events.push({ data: chunk({}, step.finish) });
		else if ("usage" in step) {
			events.push({
				data: {
					...base,
					choices: [],
					usage: {
						prompt_tokens: step.usage.prompt_tokens,
						completion_tokens: step.usage.completion_tokens,
						total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens,
						prompt_tokens_details: { cached_tokens: step.usage.cached_tokens ?? 0 },
					},
				},
			});
		} else events.push({ data: { error: step.error } });
	}
	if (options.done !== false) events.push({ data: "[DONE]" });
	return events;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages wire format
// ---------------------------------------------------------------------------------------------

/** One step of a scripted Anthropic stream; blocks get consecutive indices. */
export type AnthropicStep =
	| { text: string[] }
	| { thinking: string[]; signature: string }
	| { redactedThinking: string }
	| { toolUse: { id: string; name: string; json: string[] } }
	| { stop: "end_turn" | "max_tokens" | "tool_use" | "refusal"; outputTokens?: number }
	| { error: { type: string; message: string } };

/** Builds Anthropic `message_start` … `message_stop` events from steps. */
export function anthropicStream(
	steps: AnthropicStep[],
	options: { model?: string; inputTokens?: number; cacheReadTokens?: number; stopEvent?: boolean } = {},
): SseEvent[] {
	const events: SseEvent[] = [
		{
			event: "message_start",
			data: {
				type: "message_start",
				message: {
					id: "msg_test",
					type: "message",
					role: "assistant",
					model: options.model ?? "claude-test",
					content: [],
					stop_reason: null,
					stop_sequence: null,
					usage: {
						input_tokens: options.inputTokens ?? 10,
						output_tokens: 1,
						cache_read_input_tokens: options.cacheReadTokens ?? 0,
						cache_creation_input_tokens: 0,
					},
				},
			},
		},
		{ event: "ping", data: { type: "ping" } },
	];
	let index = 0;
	const block = (contentBlock: unknown, deltas: unknown[]) => {
		events.push({
			event: "content_block_start",
			data: { type: "content_block_start", index, content_block: contentBlock },
		});
		for (const delta of deltas) {
			events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
		}
		events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
		index++;
	};
	for (const step of steps) {
		if ("text" in step) {
			block(
				{ type: "text", text: "" },
				step.text.map((text) => ({ type: "text_delta", text })),
			);
		} else if ("thinking" in step) {
			block({ type: "thinking", thinking: "", signature: "" }, [
				...step.thinking.map((thinking) => ({ type: "thinking_delta", thinking })),
				{ type: "signature_delta", signature: step.signature },
			]);
		} else if ("redactedThinking" in step) {
			block({ type: "redacted_thinking", data: step.redactedThinking }, []);
		} else if ("toolUse" in step) {
			block(
				{ type: "tool_use", id: step.toolUse.id, name: step.toolUse.name, input: {} },
				step.toolUse.json.map((partial_json) => ({ type: "input_json_delta", partial_json })),
			);
		} else if ("stop" in step) {
			events.push({
				event: "message_delta",
				data: {
					type: "message_delta",
					delta: { stop_reason: step.stop, stop_sequence: null },
					usage: { output_tokens: step.outputTokens ?? 42 },
				},
			});
		} else {
			events.push({ event: "error", data: { type: "error", error: step.error } });
		}
	}
	if (options.stopEvent !== false) events.push({ event: "message_stop", data: { type: "message_stop" } });
	return events;
}
