import { formatSize } from "../engine/index.js";

/** The largest MCP message the server reads, in bytes (a stdio line or an HTTP body): 8 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 2 ** 20;

/**
 * What a client is told when its message is over the limit: the sizes, the knob that raises the
 * limit, and how to send less. `bytes` is the message's size when it is known.
 */
export function messageTooLargeText(maxBytes: number, bytes?: number): string {
	const size = bytes === undefined ? "" : ` the message was ${formatSize(bytes)};`;
	return (
		`Request too large:${size} this server reads at most ${formatSize(maxBytes)} per message ` +
		"(option maxMessageBytes, flag --max-message-mb) and dropped it unread. Send less in one call: " +
		"for a large file, write a first part, then add the rest with edit calls."
	);
}
