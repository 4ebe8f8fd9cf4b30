export {
	connectMcpServers,
	loadMcpTools,
	type McpClientOptions,
	type McpServerStatus,
	type McpTools,
} from "./client/client.js";
export {
	convertCallToolResult,
	createMcpAgentTool,
	type McpAgentToolOptions,
	type McpToolDetails,
} from "./client/client-tools.js";
export {
	loadMcpConfig,
	McpConfigError,
	type McpRemoteServerConfig,
	type McpServerConfig,
	type McpStdioServerConfig,
	type ParseMcpConfigOptions,
	parseMcpConfig,
} from "./client/config.js";
export {
	DEFAULT_CALL_TIMEOUT_MS,
	DEFAULT_CONNECT_TIMEOUT_MS,
	type McpCallOptions,
	McpConnection,
	type McpConnectionOptions,
} from "./client/connection.js";
export {
	MAX_TOOL_NAME_LENGTH,
	mcpToolName,
	normalizeToolName,
	normalizeToolSchema,
	type SchemaDialect,
} from "./client/normalize.js";
export { generateMcpToken, MIN_MCP_TOKEN_LENGTH, mcpTokenProblem } from "./http-auth.js";
export { normalizeOrigin } from "./http-origin.js";
export { type McpHttpServer, type McpHttpServerOptions, startMcpHttpServer } from "./http-server.js";
export { isLoopbackHost } from "./loopback.js";
export { DEFAULT_MAX_MESSAGE_BYTES } from "./message-limit.js";
export {
	MCP_PREPARE_AFTER_MS,
	type McpHttpTransportOptions,
	type McpServerTransportOption,
	type RunMcpServerOptions,
	type RunningMcpServer,
	runMcpServer,
} from "./run-server.js";
export {
	createMcpServer,
	DETAILS_META_KEY,
	type McpServerOptions,
	type ToolbeltMcpServer,
	toCallToolResult,
	toMcpTool,
} from "./server.js";
export { type BoundedStdioOptions, BoundedStdioServerTransport } from "./stdio/transport.js";
export { loadOrCreateTokenFile, type McpTokenFile, McpTokenFileError } from "./token-file.js";
