import { Transform, type TransformCallback } from "node:stream";
import type { Secret, SecretTable } from "./secret-table.js";

/**
 * A pass-through for the bytes a command sends down a tunnel the proxy cannot read into (TLS to a
 * host no secret belongs to, SSH, a database protocol): when a placeholder shows up in them — a
 * command sending it in the clear to a host it does not belong to — the stream fails before the
 * chunk holding its end is passed on, so the whole placeholder never leaves.
 */
export function placeholderScanner(
	table: SecretTable,
	onFound: (secret: Secret) => void,
	/** Which placeholders may pass (a request body to the host they belong to). Default: none. */
	allowed: (secret: Secret) => boolean = () => false,
): Transform {
	const longest = Math.max(0, ...table.secrets.map((secret) => secret.placeholder.length));
	let tail = "";
	return new Transform({
		transform(chunk: Buffer, _encoding, callback: TransformCallback) {
			// latin1 keeps one character a byte, so the tail is exactly the last bytes.
			const text = tail + chunk.toString("latin1");
			const found = table.foundIn(text).find((secret) => !allowed(secret));
			if (found) {
				onFound(found);
				callback(new Error(`placeholder of ${found.label}`));
				return;
			}
			tail = text.slice(-(longest - 1));
			callback(null, chunk);
		},
	});
}
