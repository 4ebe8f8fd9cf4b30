export { Agent, type AgentInput, type AgentOptions, type AgentState } from "./agent.js";
export { agentLoop, INCOMPLETE_TOOL_CALL_TEXT, TRUNCATED_TOOL_CALL_TEXT } from "./agent-loop.js";
export { EventStream } from "./event-stream.js";
export {
	createAssistantMessage,
	createErrorReply,
	createSkippedToolResult,
	createUserMessage,
	type ErrorReplyOptions,
	emptyUsage,
	messageText,
	toolCallsOf,
} from "./messages.js";
export {
	createStreamFn,
	modelApi,
	type ProviderOptions,
	streamModel,
} from "./providers/index.js";
export type { RetryOptions } from "./providers/retry.js";
export type * from "./types.js";
