import type { Static, TSchema } from "typebox";
import type { ToolSession } from "./session.js";

/** A block of text the model reads. */
export interface TextContent {
	type: "text";
	/** The text itself, already within the tool's output budget. */
	text: string;
}

/** An image the model sees (base64, never a path). */
export interface ImageContent {
	type: "image";
	/** Base64-encoded image bytes, without a `data:` prefix. */
	data: string;
	/** MIME type of the bytes, e.g. `image/png`. */
	mimeType: string;
}

/** One block of a tool result's model-facing content. */
export type ToolResultContent = TextContent | ImageContent;

/** Hints about a tool's behaviour, as in the MCP specification. All optional. */
export interface ToolAnnotations {
	/** A human-readable title. */
	title?: string;
	/** The tool does not change its environment. Default: false. */
	readOnlyHint?: boolean;
	/** The tool may destroy or overwrite data (meaningful when not read-only). Default: true. */
	destructiveHint?: boolean;
	/** Calling the tool again with the same arguments has no further effect. Default: false. */
	idempotentHint?: boolean;
	/** The tool talks to an open world (network, other systems). Default: true. */
	openWorldHint?: boolean;
}

/** What the model sees of a tool: its name, description and argument schema. */
export interface ToolDefinition<TParameters extends TSchema = TSchema> {
	/** Unique tool name, e.g. `read`. */
	name: string;
	/** What the tool does and when to use it, written for a language model. */
	description: string;
	/** JSON Schema of the arguments object (TypeBox-built, or plain JSON Schema from elsewhere). */
	parameters: TParameters;
	/** Optional behaviour hints. */
	annotations?: ToolAnnotations;
}

/** What a tool returns. A tool reports failure by throwing, never by returning an error result. */
export interface ToolResult<TDetails = unknown> {
	/** What the model reads. */
	content: ToolResultContent[];
	/** Structured data for programs and UIs (exit code, truncation facts, diff, …). Not sent to the model. */
	details?: TDetails;
	/** Ask the agent loop to stop after the current batch of tool calls. Default: false. */
	terminate?: boolean;
}

/** Receives partial results while a tool runs (e.g. the growing tail of a shell's output). */
export type ToolUpdateCallback<TDetails = unknown> = (partialResult: ToolResult<TDetails>) => void;

/**
 * How a tool may be scheduled in a parallel batch. `sequential` makes the call a barrier for
 * what it touches (`ToolTarget.touches`): it starts after every earlier call that touches the same
 * thing has finished, and later such calls start after it. A call whose target says nothing of
 * what it touches is a barrier for every call.
 */
export type ExecutionMode = "parallel" | "sequential";

/**
 * What a call may do to its surroundings, as its tool declares it: `read` a file, `write` (create,
 * replace or edit) a file, `list` or search below a folder, `execute` a command or anything else.
 * Guards decide on this, never on a tool's name.
 */
export type ToolAccess = "read" | "write" | "list" | "execute";

/**
 * What one call acts on, declared by its tool (`AgentTool.target`). The engine asks for it once,
 * after validation, and carries it unchanged, opaque to itself, in the hook contexts and into
 * `execute`, so a guard and the tool see the same resolved thing. Tools and guards may extend it
 * (a resolved path, the roots a guard confines the call to, a filter the tool must honour).
 */
export interface ToolTarget {
	/** What the call may do. */
	access: ToolAccess;
	/** The path argument as the call gave it, when the call acts on a path. */
	path?: string;
	/** The command the call runs, when it runs one. */
	command?: string;
	/**
	 * What the call reads or changes, as keys the scheduler compares (set by a workspace: each
	 * file's real path, folded so that two spellings a disk may equate give one key, `/` between
	 * names). A key covers every key below it (`/a` covers `/a/b`). In a parallel batch a call of a
	 * `sequential` tool then waits only for earlier calls whose keys overlap its own, not for every
	 * call. Default: unknown, the call overlaps everything (a command, a search).
	 */
	touches?: readonly string[];
}

/** What the engine tells a tool's `target` about the batch the call is declared in. */
export interface TargetContext {
	/**
	 * Look-ups the calls of one batch share while nothing has run that could change what they
	 * found: a fresh memo for each batch, and again whenever a call whose target does not say what
	 * it touches (a command, a tool that declares nothing) starts or ends, since it may change
	 * anything. For facts that the batch's own file calls cannot change (a folder's real path);
	 * never kept past the batch, so a link swapped between two batches is seen by the second.
	 */
	lookups: Map<string, unknown>;
}

/** What `execute` receives besides its arguments. */
export interface ToolExecuteContext {
	/** The call's target, as declared by `target(args)` and seen by the hooks. Undefined for tools that declare none. */
	target?: ToolTarget;
	/**
	 * The session the call belongs to (the agent run, unless its caller passed a longer one). A
	 * tool that leaves something running past the call registers its clean-up here. Undefined
	 * when the caller gave none (then such things end with the tool set, e.g. its job registry).
	 */
	session?: ToolSession;
	/**
	 * Runs further calls from inside this one (code mode: a program that calls tools) through the
	 * same path as the batch's own calls. Undefined outside `executeToolCalls`.
	 */
	nestedCalls?: NestedToolCalls;
}

/** A call made from inside a running call: which tool, with which arguments. */
export interface NestedToolCall {
	/** Name of the tool to run. */
	name: string;
	/** Arguments as a model would send them (repaired and validated like a model's). */
	arguments: Record<string, unknown>;
}

/**
 * The batch's tools, callable from inside a running call. Each call takes the path of a direct
 * call: lookup, argument repair and validation, the target, `beforeToolCall` (the whole safety
 * layer), `execute` with the session, truncation by the tool, `afterToolCall` (checkpoints), one
 * result; its events carry the running call's id as `parentToolCallId`. Scheduling between nested
 * calls (barriers, parallel reads) is the caller's: run them through a `CallGate`.
 */
export interface NestedToolCalls {
	/** The tools of the batch (the running call's own tool included). */
	readonly tools: readonly AnyAgentTool[];
	/**
	 * Runs one call. `signal` aborts it (default: the batch's signal). Contract: never throws;
	 * a failure, a block or an abort is an error result.
	 */
	run(call: NestedToolCall, signal?: AbortSignal): Promise<ToolResultMessage>;
}

/** A tool that can run: its definition plus the code that executes it. */
export interface AgentTool<TParameters extends TSchema = TSchema, TDetails = unknown>
	extends ToolDefinition<TParameters> {
	/**
	 * Runs the tool with validated, coerced arguments. Throw an `Error` with a message written
	 * for the model to report failure; honour `signal` promptly.
	 */
	execute(
		toolCallId: string,
		args: Static<TParameters>,
		signal: AbortSignal | undefined,
		onUpdate?: ToolUpdateCallback<TDetails>,
		context?: ToolExecuteContext,
	): Promise<ToolResult<TDetails>>;
	/**
	 * Declares what a call with these (validated) arguments acts on. Called once per call by the
	 * engine, before `beforeToolCall` (again when a hook rewrites the arguments). Contract: may
	 * read the disk to resolve the path, must not change anything. Default: none (guards treat
	 * the call as `{ access: "execute" }`). `context`: the batch's shared look-ups (absent when a
	 * caller outside a batch asks).
	 */
	target?(args: Static<TParameters>, context?: TargetContext): ToolTarget | Promise<ToolTarget>;
	/**
	 * Repairs common model mistakes before validation (aliases, a JSON string where an array
	 * belongs, legacy field names). Receives the raw arguments; returns the repaired ones.
	 */
	prepareArguments?(args: unknown): unknown;
	/** Scheduling mode within a parallel batch. Default: `parallel`. */
	executionMode?: ExecutionMode;
}

/**
 * Any tool, whatever its schema. `execute` is declared as a method, so a tool with a concrete
 * argument type is assignable here (method parameters are checked bivariantly).
 */
export type AnyAgentTool = AgentTool<TSchema, unknown>;

/** A tool call as the model emitted it. */
export interface ToolCall {
	type: "toolCall";
	/** Provider-assigned id, echoed in the result. */
	id: string;
	/** Name of the tool to run. */
	name: string;
	/** Arguments as parsed from the model's JSON (may be malformed; validation decides). */
	arguments: Record<string, unknown>;
}

/** The result of one tool call, as it goes back into the transcript. */
export interface ToolResultMessage<TDetails = unknown> {
	role: "toolResult";
	/** The id of the tool call this answers. */
	toolCallId: string;
	/** The name of the tool that was called. */
	toolName: string;
	/** What the model reads. */
	content: ToolResultContent[];
	/** Structured data for programs and UIs. */
	details?: TDetails;
	/** True when the call failed (thrown error, unknown tool, invalid arguments, block, abort). */
	isError: boolean;
	/** Milliseconds since the epoch when the result was produced. */
	timestamp: number;
}

/** A tool call has started (after preparation and `beforeToolCall`). */
export interface ToolExecutionStartEvent {
	type: "tool_execution_start";
	toolCallId: string;
	toolName: string;
	/** Set on a call made from inside another (code mode): the id of that call. */
	parentToolCallId?: string;
	/** The arguments as received from the model. */
	args: unknown;
}

/** A running tool reported progress. Throttled per call. */
export interface ToolExecutionUpdateEvent {
	type: "tool_execution_update";
	toolCallId: string;
	toolName: string;
	/** Set on a call made from inside another (code mode): the id of that call. */
	parentToolCallId?: string;
	args: unknown;
	/** The latest partial result. */
	partialResult: ToolResult;
}

/** A tool call has finished, with its final (hook-patched) result. Emitted in completion order. */
export interface ToolExecutionEndEvent {
	type: "tool_execution_end";
	toolCallId: string;
	toolName: string;
	/** Set on a call made from inside another (code mode): the id of that call. */
	parentToolCallId?: string;
	/** The final result, as the model will see it. */
	result: ToolResult;
	/** True when the result is an error. */
	isError: boolean;
	/** Wall-clock duration of the call, in milliseconds. */
	durationMs: number;
}

/** Events emitted by `executeToolCalls`. */
export type ToolExecutionEvent = ToolExecutionStartEvent | ToolExecutionUpdateEvent | ToolExecutionEndEvent;

/** What a `beforeToolCall` hook sees. */
export interface BeforeToolCallContext {
	/** The call as the model emitted it. */
	toolCall: ToolCall;
	/** The tool that will run. */
	tool: AnyAgentTool;
	/** The validated, coerced arguments (as updated by earlier hooks in a chain). */
	args: Record<string, unknown>;
	/** What the call acts on, as the tool declared it (`{ access: "execute" }` for tools that declare none). Undefined only outside `executeToolCalls`. */
	target?: ToolTarget;
	/** The call whose program made this one (code mode's inner calls); undefined for a model's own call. */
	parent?: ToolCall;
}

/** What a `beforeToolCall` hook may decide. Returning nothing lets the call run unchanged. */
export interface BeforeToolCallResult {
	/** Do not run the tool; the model gets an error result with `reason`. */
	block?: boolean;
	/** Why the call was blocked, written for the model. */
	reason?: string;
	/** Structured facts of a block for programs (e.g. the rule that decided); becomes the error result's `details`. */
	details?: unknown;
	/** Stop the agent loop after this batch. */
	terminate?: boolean;
	/** Replacement arguments; re-validated against the tool's schema before the tool runs. */
	args?: Record<string, unknown>;
	/** The target of the replacement arguments, when the hook (or `composeHooks`) already asked the tool for it. Default: asked again. */
	target?: ToolTarget;
	/**
	 * True when the hook did something the engine cannot see that may have changed the file system
	 * (it ran a program): what the batch looked up before (`TargetContext.lookups`) is dropped, so
	 * the calls declared after it are judged on what the hook left. Default: false.
	 */
	sideEffects?: boolean;
}

/** What an `afterToolCall` hook sees. */
export interface AfterToolCallContext {
	toolCall: ToolCall;
	tool: AnyAgentTool;
	/** The arguments the tool ran with. */
	args: Record<string, unknown>;
	/** The call's target, the same object the before-hooks and `execute` saw. */
	target?: ToolTarget;
	/** The call whose program made this one (code mode's inner calls); undefined for a model's own call. */
	parent?: ToolCall;
	/** The result so far (patched by earlier hooks in a chain). */
	result: ToolResult;
	/** Whether the result so far is an error. */
	isError: boolean;
}

/** Field-by-field replacement of a tool's result. Omitted fields stay as they are. */
export interface AfterToolCallResult {
	content?: ToolResultContent[];
	details?: unknown;
	isError?: boolean;
	terminate?: boolean;
	/** As `BeforeToolCallResult.sideEffects`, for what the hook did after the tool ran. */
	sideEffects?: boolean;
}

/** Runs before a tool executes; can block it, stop the loop, or rewrite its arguments. */
export type BeforeToolCallHook = (
	context: BeforeToolCallContext,
	signal: AbortSignal | undefined,
) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;

/** Runs after a tool executes (also after it threw); can patch the result. */
export type AfterToolCallHook = (
	context: AfterToolCallContext,
	signal: AbortSignal | undefined,
) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;

/** A pair of optional hooks, as composed by `composeHooks`. */
export interface ToolHooks {
	/** Runs before each call. */
	beforeToolCall?: BeforeToolCallHook;
	/** Runs after each call. */
	afterToolCall?: AfterToolCallHook;
}

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
	/** The session the calls belong to, handed to each tool's `execute` (see `ToolExecuteContext.session`). Default: none. */
	session?: ToolSession;
	/**
	 * Most UTF-8 bytes of result text the whole batch returns to the model, shared fairly among its
	 * calls (`applyBatchBudget`): small results stay whole, big ones are cut to their share with a
	 * note. Events still carry each full result. Default: no budget (each tool's own limit only).
	 */
	batchOutputBudget?: number;
	/**
	 * The call whose program makes these calls (code mode's inner calls, `ToolExecuteContext.nestedCalls`),
	 * handed to the hooks as `parent`: a hook that counts a model's requests (a checkpoint turn per
	 * request) tells the calls made inside one from new ones. Default: none, the calls are the model's own.
	 */
	parentToolCall?: ToolCall;
}

/** What `executeToolCalls` returns. */
export interface ExecuteToolCallsResult {
	/** One result per tool call, in source order. */
	messages: ToolResultMessage[];
	/** True when any call (or hook) asked the agent loop to stop after this batch. */
	terminate: boolean;
}
