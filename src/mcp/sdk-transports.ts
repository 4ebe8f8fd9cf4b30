import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

// The MCP SDK's client and its transports, and its HTTP server transport, are loaded when a
// connection or an HTTP server is made, not when this part is imported: `toolbelt mcp` over stdio
// (and every command that only serves) needs neither, and loading them (the HTTP server's framework
// replaces Node's fetch classes, which loads undici, HTTP/2 and web streams; the client brings
// OAuth, event-source parsing and a process spawner) was ~70 ms of its start before `initialize`.

/** The SDK's client side: the client and the three transports it connects through. */
export interface ClientSdk {
	Client: typeof Client;
	SSEClientTransport: typeof SSEClientTransport;
	StdioClientTransport: typeof StdioClientTransport;
	StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

let clientSdk: Promise<ClientSdk> | undefined;

/** The SDK's client and transports, loaded at the first call (then the same promise). */
export function loadClientSdk(): Promise<ClientSdk> {
	clientSdk ??= Promise.all([
		import("@modelcontextprotocol/sdk/client/index.js"),
		import("@modelcontextprotocol/sdk/client/sse.js"),
		import("@modelcontextprotocol/sdk/client/stdio.js"),
		import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
	]).then(([client, sse, stdio, http]) => ({
		Client: client.Client,
		SSEClientTransport: sse.SSEClientTransport,
		StdioClientTransport: stdio.StdioClientTransport,
		StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
	}));
	return clientSdk;
}

/** The SDK's Streamable HTTP server transport, loaded at the first call. */
export async function loadHttpServerTransport(): Promise<typeof StreamableHTTPServerTransport> {
	return (await import("@modelcontextprotocol/sdk/server/streamableHttp.js")).StreamableHTTPServerTransport;
}
