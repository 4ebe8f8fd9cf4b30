import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Random bytes in a generated token: 256 bits, far beyond guessing. */
const GENERATED_TOKEN_BYTES = 32;

/** The shortest token accepted from the user (environment, file, option): 16 characters. */
export const MIN_MCP_TOKEN_LENGTH = 16;

/** A fresh bearer token for the MCP HTTP endpoint: 32 crypto-random bytes, base64url (43 characters). */
export function generateMcpToken(): string {
	return randomBytes(GENERATED_TOKEN_BYTES).toString("base64url");
}

/**
 * Why `token` cannot be a bearer token, or undefined when it can: it must be at least
 * `MIN_MCP_TOKEN_LENGTH` visible ASCII characters with no spaces, so it fits an HTTP header unchanged
 * and is not trivially guessed. `source` names where it came from, for the message.
 */
export function mcpTokenProblem(token: string, source: string): string | undefined {
	if (token.length < MIN_MCP_TOKEN_LENGTH) {
		return `${source} holds a token of ${token.length} characters; use at least ${MIN_MCP_TOKEN_LENGTH} (e.g. the output of \`openssl rand -base64 32\`).`;
	}
	if (!/^[\x21-\x7e]+$/.test(token)) {
		return `${source} holds a token with spaces, control or non-ASCII characters; use visible ASCII only (e.g. the output of \`openssl rand -base64 32\`).`;
	}
	return undefined;
}

function digest(text: string): Buffer {
	return createHash("sha256").update(text, "utf8").digest();
}

/**
 * True when `request` carries `Authorization: Bearer <token>`. The comparison runs in constant
 * time over SHA-256 digests, so neither the token's characters nor its length leak through timing.
 */
export function hasBearerToken(request: IncomingMessage, token: string): boolean {
	const header = request.headers.authorization;
	if (typeof header !== "string") return false;
	// RFC 7235: the scheme is case-insensitive; one or more spaces separate it from the credentials.
	const match = /^bearer +(\S+) *$/i.exec(header);
	const presented = match?.[1] ?? "";
	return timingSafeEqual(digest(presented), digest(token)) && match !== null;
}

/** The `WWW-Authenticate` challenge of a refused request (RFC 6750): `invalid_token` when one was sent. */
export function bearerChallenge(request: IncomingMessage): string {
	return request.headers.authorization === undefined
		? 'Bearer realm="toolbelt-mcp"'
		: 'Bearer realm="toolbelt-mcp", error="invalid_token"';
}
