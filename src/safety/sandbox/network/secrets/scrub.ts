// What comes back from a host a secret was put in for, on its way to the command: a server that
// echoes a request's headers (a debugging endpoint, an error page quoting the token it refused)
// would hand the command the very value the proxy keeps from it, and the command could send it
// anywhere. Each secret's value in the answer becomes its placeholder again.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { Transform, type TransformCallback } from "node:stream";
import type { Secret, SecretTable } from "./secret-table.js";

/** Values this short are not looked for: they would match ordinary text by chance (as in the environment). */
const shortestValue = 8;

function replaceValues(text: string, secrets: readonly Secret[], encoded: readonly string[]): string {
	let result = text;
	secrets.forEach((secret, index) => {
		result = result.split(encoded[index] ?? secret.value).join(secret.placeholder);
	});
	return result;
}

/**
 * A pass-through that turns each secret's value into its placeholder, also across chunk
 * boundaries (the last bytes wait for the next chunk, never more than the longest value).
 */
export function secretScrubber(table: SecretTable): Transform {
	const secrets = table.secrets.filter((secret) => secret.value.length >= shortestValue);
	// latin1 keeps one character a byte: the values as the bytes of their UTF-8 spelling.
	const encoded = secrets.map((secret) => Buffer.from(secret.value, "utf8").toString("latin1"));
	const longest = Math.max(0, ...encoded.map((value) => value.length));
	let tail = "";
	return new Transform({
		transform(chunk: Buffer, _encoding, callback: TransformCallback) {
			const text = replaceValues(tail + chunk.toString("latin1"), secrets, encoded);
			const keep = Math.min(text.length, longest - 1);
			tail = text.slice(text.length - keep);
			callback(null, Buffer.from(text.slice(0, text.length - keep), "latin1"));
		},
		flush(callback: TransformCallback) {
			callback(null, Buffer.from(tail, "latin1"));
		},
	});
}

/** The answer's headers with each secret's value replaced (and no `Content-Length` when its body is rewritten). */
export function scrubbedHeaders(
	table: SecretTable,
	headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
	bodyRewritten: boolean,
): Record<string, string | string[] | undefined> {
	const secrets = table.secrets.filter((secret) => secret.value.length >= shortestValue);
	const encoded = secrets.map((secret) => secret.value);
	const out: Record<string, string | string[] | undefined> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (bodyRewritten && name === "content-length") continue;
		out[name] = Array.isArray(value)
			? value.map((one) => replaceValues(one, secrets, encoded))
			: value === undefined
				? undefined
				: replaceValues(value, secrets, encoded);
	}
	return out;
}

/** True when the answer to `method` has a body to rewrite (not HEAD, not 1xx, 204 or 304). */
export function hasBody(method: string | undefined, incoming: IncomingMessage): boolean {
	const status = incoming.statusCode ?? 200;
	return method !== "HEAD" && status >= 200 && status !== 204 && status !== 304;
}
