import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
	type CallToolRequest,
	type CallToolResult,
	ErrorCode,
	ListToolsRequestSchema,
	McpError,
	type ServerNotification,
	type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { z } from "zod";
import type { AnyAgentTool, ToolExecutionEvent, ToolHooks } from "../engine/index.js";
import {
	type CallGate,
	ConcurrentBatchBudget,
	createCallGate,
	executeToolCalls,
	isAbortError,
} from "../engine/index.js";
import type { SessionRecorder } from "../sessions/index.js";
import { progressMessage, toCallToolResult, toMcpTool } from "./call-result.js";

export { DETAILS_META_KEY, toCallToolResult, toMcpTool } from "./call-result.js";

/**
 * Accepts any `tools/call` shape so that the SDK's own strict check answers a malformed request
 * with `-32602 Invalid params` (a strict schema here would fail first, as `-32603 Internal error`).
 */
const LooseCallToolRequestSchema = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });

/**
 * The SDK's own validator, built on first use: the Server builds it (an Ajv instance with its
 * formats) in its constructor, a few milliseconds before `initialize` can be answered, and uses
 * it only for elicitation, which this server never sends.
 */
function validatorOnFirstUse(): jsonSchemaValidator {
	let validator: AjvJsonSchemaValidator | undefined;
	return {
		getValidator: (schema) => {
			validator ??= new AjvJsonSchemaValidator();
			return validator.getValidator(schema);
		},
	};
}

/** Options of `createMcpServer`. */
export interface McpServerOptions extends ToolHooks {
	/** The tools to serve. Names must be unique. */
	tools: readonly AnyAgentTool[];
	/** Server name announced in the handshake. Default: `toolbelt`. */
	name?: string;
	/** Server version announced in the handshake. Default: `0.1.0`. */
	version?: string;
	/** Instructions for the client's model, sent in the handshake. Default: none. */
	instructions?: string;
	/**
	 * Schedules the calls of this server. Share one gate between servers to apply the
	 * sequential-tool barrier across them. Default: a gate of its own.
	 */
	gate?: CallGate;
	/** Least time between two progress notifications of one call, in ms. Default: 100. */
	progressIntervalMs?: number;
	/** Most UTF-8 bytes of output tail in one progress notification. Default: 4,096. */
	progressTailBytes?: number;
	/**
	 * Most UTF-8 bytes of text the results of calls that run at the same time return together
	 * (`ConcurrentBatchBudget`: a client's parallel calls arrive as separate requests), shared fairly;
	 * each result then waits for the others of its batch. Default: none (each result on its own).
	 */
	batchOutputBudget?: number;
	/** Send each result's `details` in `_meta["toolbelt/details"]`. Default: true. */
	includeDetails?: boolean;
	/** Receives diagnostics (never protocol traffic). Default: none. */
	log?: (message: string) => void;
	/**
	 * Opens the recording of this client's session, at its first tool call (a client that only
	 * lists tools leaves no file). Receives the client's name and version from the handshake.
	 * Resolving to undefined records nothing. Default: nothing is recorded.
	 */
	recordSession?: (client: string | undefined) => Promise<SessionRecorder | undefined>;
}

/** An MCP server serving toolbelt tools, plus control over the calls it is running. */
export interface ToolbeltMcpServer {
	/** The SDK server; connect it to a transport with `connect`. */
	readonly server: Server;
	/** Attaches a transport (stdio, Streamable HTTP, in-memory) and starts serving. */
	connect(transport: Transport): Promise<void>;
	/** Calls admitted and not yet answered. */
	readonly activeCalls: number;
	/** Aborts every running call (killing its processes), waits for them to settle, then closes the server. */
	close(): Promise<void>;
}

/** A call this server is running, so `close` can abort it and wait for it. */
interface RunningCall {
	controller: AbortController;
	done: Promise<unknown>;
}

/** What one server holds across calls; the phases below read and change it. */
interface ServerState {
	options: McpServerOptions;
	server: Server;
	tools: AnyAgentTool[];
	toolsByName: Map<string, AnyAgentTool>;
	gate: CallGate;
	progressTailBytes: number;
	includeDetails: boolean;
	running: Set<RunningCall>;
	/** The shared output budget of calls running together, when `batchOutputBudget` is set. */
	batches: ConcurrentBatchBudget | undefined;
	/** Set by `close`: new calls are refused. */
	closing: boolean;
	/** The one close in progress or done. */
	closed: Promise<void> | undefined;
	/** The session's recording and the hooks wrapped by it, opened at the first call. */
	recording: Promise<{ recorder?: SessionRecorder; hooks: ToolHooks }> | undefined;
}

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Creates an MCP server for `tools` on the SDK's low-level `Server`: `tools/list` gives each
 * tool's JSON Schema, description and annotations; `tools/call` runs one call through the engine
 * (validation with coercion, hooks, truncation, error conversion) inside a call gate, so calls
 * arriving one by one are scheduled like a batch. Progress notifications carry the growing
 * output tail when the client sends a progress token; `notifications/cancelled` aborts the call.
 */
export function createMcpServer(options: McpServerOptions): ToolbeltMcpServer {
	const tools = [...options.tools];
	const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
	if (toolsByName.size !== tools.length) throw new Error("createMcpServer: tool names must be unique.");
	const server = new Server(
		{ name: options.name ?? "toolbelt", version: options.version ?? "0.1.0" },
		{
			capabilities: { tools: { listChanged: false } },
			...(options.instructions ? { instructions: options.instructions } : {}),
			jsonSchemaValidator: validatorOnFirstUse(),
		},
	);
	const state: ServerState = {
		options,
		server,
		tools,
		toolsByName,
		gate: options.gate ?? createCallGate(),
		progressTailBytes: options.progressTailBytes ?? 4096,
		includeDetails: options.includeDetails ?? true,
		running: new Set(),
		batches: options.batchOutputBudget !== undefined ? new ConcurrentBatchBudget(options.batchOutputBudget) : undefined,
		closing: false,
		closed: undefined,
		recording: undefined,
	};
	server.onerror = (error) => options.log?.(`mcp: ${error.message}`);
	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(toMcpTool) }));
	server.setRequestHandler(LooseCallToolRequestSchema, (raw, extra) =>
		// The SDK's wrapper has validated the request against the strict schema by now.
		handleCallTool(state, raw as unknown as CallToolRequest, extra),
	);
	return {
		server,
		connect: (transport) => server.connect(transport),
		get activeCalls() {
			return state.running.size;
		},
		close: () => closeServer(state),
	};
}

/** The tool a call names, if the server may still take calls. */
function admittedTool(state: ServerState, name: string): AnyAgentTool {
	const tool = state.toolsByName.get(name);
	if (!tool) {
		throw new McpError(
			ErrorCode.InvalidParams,
			`Unknown tool "${name}". Available tools: ${[...state.toolsByName.keys()].join(", ")}.`,
		);
	}
	if (state.closing) throw new McpError(ErrorCode.InternalError, "The server is shutting down.");
	return tool;
}

/** Sends the growing output tail as progress notifications, when the client asked for them. */
function progressReporter(state: ServerState, extra: CallExtra): ((event: ToolExecutionEvent) => void) | undefined {
	const { progressToken } = extra._meta ?? {};
	if (progressToken === undefined) return undefined;
	let progress = 0;
	return (event) => {
		const message = progressMessage(event, state.progressTailBytes);
		if (message === undefined) return;
		progress++;
		extra
			.sendNotification({ method: "notifications/progress", params: { progressToken, progress, message } })
			.catch(() => {});
	};
}

/** One `tools/call`: admitted, run through the engine in the gate, answered as an MCP result. */
async function handleCallTool(state: ServerState, request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
	const { name } = request.params;
	const tool = admittedTool(state, name);
	const controller = new AbortController();
	const onCancel = () => controller.abort(extra.signal.reason);
	if (extra.signal.aborted) onCancel();
	else extra.signal.addEventListener("abort", onCancel, { once: true });
	const progress = progressReporter(state, extra);
	const { recorder, hooks } = await recording(state);
	const onEvent =
		recorder && progress
			? (event: ToolExecutionEvent) => {
					recorder.onToolEvent(event);
					progress(event);
				}
			: (recorder?.onToolEvent ?? progress);
	// Joined as the request arrives (nothing awaited from here to the try, so it always finishes):
	// calls sent together share the budget, whatever order the gate runs them in.
	const member = state.batches?.join();
	const call = state.gate.run(
		() =>
			executeToolCalls({
				tools: state.tools,
				toolCalls: [{ type: "toolCall", id: String(extra.requestId), name, arguments: request.params.arguments ?? {} }],
				signal: controller.signal,
				onEvent,
				updateIntervalMs: state.options.progressIntervalMs ?? 100,
				beforeToolCall: hooks.beforeToolCall,
				afterToolCall: hooks.afterToolCall,
			}),
		{ mode: tool.executionMode, signal: controller.signal },
	);
	const entry: RunningCall = { controller, done: call.catch(() => {}) };
	state.running.add(entry);
	try {
		const { messages } = await call;
		const message = member ? await member.finish(messages[0]) : messages[0];
		if (!message) throw new McpError(ErrorCode.InternalError, `Tool "${name}" produced no result.`);
		return toCallToolResult(message, state.includeDetails);
	} catch (error) {
		if (isAbortError(error)) {
			return { content: [{ type: "text", text: `Tool "${name}" was cancelled before it started.` }], isError: true };
		}
		throw error;
	} finally {
		// A call that ended without a result must not hold its batch's others.
		void member?.finish(undefined);
		state.running.delete(entry);
		extra.signal.removeEventListener("abort", onCancel);
	}
}

/** The session's recording, opened once at the first call; the server's own hooks when nothing records. */
function recording(state: ServerState): Promise<{ recorder?: SessionRecorder; hooks: ToolHooks }> {
	const { beforeToolCall, afterToolCall, recordSession } = state.options;
	const plain = { beforeToolCall, afterToolCall };
	state.recording ??= (async () => {
		if (!recordSession) return { hooks: plain };
		const version = state.server.getClientVersion();
		const recorder = await recordSession(version ? `${version.name} ${version.version}` : undefined).catch(
			() => undefined,
		);
		return recorder ? { recorder, hooks: recorder.wrapHooks(plain) } : { hooks: plain };
	})();
	return state.recording;
}

/** Aborts every running call, waits for them to settle, then closes the SDK server. Idempotent. */
function closeServer(state: ServerState): Promise<void> {
	state.closed ??= (async () => {
		state.closing = true;
		const pending = [...state.running];
		for (const entry of pending) entry.controller.abort(new Error("The MCP server is shutting down."));
		await Promise.all(pending.map((entry) => entry.done));
		(await state.recording)?.recorder?.close();
		await state.server.close().catch(() => {});
	})();
	return state.closed;
}
