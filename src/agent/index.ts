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
	type ApiKeyResolution,
	apiKeyEnvVar,
	defaultBaseUrl,
	isLocalBaseUrl,
	knownProviders,
	type ResolveApiKeyOptions,
	resolveApiKey,
} from "./providers/config.js";
export { createStreamFn, modelApi, type ProviderOptions, streamModel } from "./providers/index.js";
export { PartialJsonScanner, parsePartialJson } from "./providers/partial-json.js";
export { isRetryableError, type RetryOptions } from "./providers/retry.js";
export {
	type AnthropicToolSchema,
	type OpenAIToolSchema,
	toAnthropicTools,
	toJsonSchemaTools,
	toOpenAITools,
} from "./providers/tool-schemas.js";
export { MISSING_TOOL_RESULT_TEXT, normalizeTranscript } from "./providers/transcript.js";
export { buildSystemPrompt, type SystemPromptOptions } from "./system-prompt.js";
export type * from "./types.js";
