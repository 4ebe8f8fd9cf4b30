const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost", "[::1]"]);

/** True for a loopback host name or address: the only kind the MCP HTTP server binds to or answers. */
export function isLoopbackHost(host: string): boolean {
	return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}
