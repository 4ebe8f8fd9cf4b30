export { type Deadline, type RaceAbortOptions, raceAbort, startDeadline, stoppableSignal } from "./abort.js";
export { applyBatchBudget, type BatchBudgetMember, ConcurrentBatchBudget, fairShares } from "./batch-budget.js";
export { type CallGate, type CallGateRunOptions, createCallGate } from "./call-gate.js";
export { monotonicMs } from "./clock.js";
export { AbortError, errorMessage, isAbortError, ToolError, throwIfAborted } from "./errors.js";
export { createThrottle, emitSafely, type Throttle, type ToolEventListener } from "./events.js";
export { executeToolCalls } from "./execute-tool-calls.js";
export { pendingFileMutationQueues, withFileMutationQueue } from "./file-mutation-queue.js";
export { applyResultPatch, composeHooks, declaredTarget } from "./hooks.js";
export {
	createToolSession,
	DEFAULT_SESSION_END_TIMEOUT_MS,
	type OwnedToolSession,
	type ToolSession,
} from "./session.js";
export {
	type CutTextOptions,
	countLines,
	cutMiddle,
	cutText,
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	type DurationStyle,
	formatDuration,
	formatSize,
	type LineTruncationResult,
	type TruncationOptions,
	type TruncationResult,
	truncateHead,
	truncateLine,
	truncateTail,
	utf8Prefix,
	utf8Suffix,
} from "./truncate.js";
export type {
	AfterToolCallContext,
	AfterToolCallHook,
	AfterToolCallResult,
	AgentTool,
	AnyAgentTool,
	BeforeToolCallContext,
	BeforeToolCallHook,
	BeforeToolCallResult,
	ExecuteToolCallsOptions,
	ExecuteToolCallsResult,
	ExecutionMode,
	ImageContent,
	NestedToolCall,
	NestedToolCalls,
	TargetContext,
	TextContent,
	ToolAccess,
	ToolAnnotations,
	ToolCall,
	ToolDefinition,
	ToolExecuteContext,
	ToolExecutionEndEvent,
	ToolExecutionEvent,
	ToolExecutionStartEvent,
	ToolExecutionUpdateEvent,
	ToolHooks,
	ToolResult,
	ToolResultContent,
	ToolResultMessage,
	ToolTarget,
	ToolUpdateCallback,
} from "./types.js";
export { loadAjv } from "./validation/ajv-loader.js";
export { Type } from "./validation/schema-builder.js";
export { prepareValidator, ValidationError, validateToolArguments } from "./validation/validate.js";
