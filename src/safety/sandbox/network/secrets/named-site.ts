// Which site a request names. The proxy connects to the host a secret belongs to, but the server
// there picks the site by the request's own words: the `Host` header, or the authority of an
// absolute request target (RFC 9112 3.2.2: it wins over `Host`). A CDN or a shared server holds
// many sites behind one address and one certificate, so a request with the secret that names
// another site (domain fronting) would hand the value to whoever owns that site.
import { normalizeHost } from "../policy.js";

/** `name[:port]` or `[v6][:port]`: nothing a server could read as a different name (no userinfo, no path). */
const authorityPattern = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/i;

function sameSite(authority: string, host: string, port: number): boolean {
	const match = authorityPattern.exec(authority.trim());
	if (!match) return false;
	return normalizeHost(match[1] ?? "") === host && (match[2] === undefined || Number(match[2]) === port);
}

/**
 * The site `target` (the request target as sent) or `hostHeader` names when it is not `host:port`,
 * quoted for a message; undefined when both name it (or leave it to the connection: an origin-form
 * target, no `Host`). A port, when written, must be the connection's.
 */
export function otherNamedSite(
	target: string,
	hostHeader: string | string[] | undefined,
	host: string,
	port: number,
): string | undefined {
	if (!target.startsWith("/") && target !== "*") {
		const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target)?.[1];
		if (authority === undefined || !sameSite(authority, host, port)) return `the request target "${target}"`;
	}
	for (const value of Array.isArray(hostHeader) ? hostHeader : hostHeader === undefined ? [] : [hostHeader]) {
		if (!sameSite(value, host, port)) return `the Host header "${value}"`;
	}
	return undefined;
}
