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

/**
 * The deepest nesting of arrays and objects a message may have. Parsing is linear in the text, but
 * each level is an object in memory: an 8 MB line of 4 million `[` took the server to 506 MB, and
 * the copies and checks after the parse recurse. Tool arguments nest at most 64 levels (the engine's
 * bound); the JSON-RPC envelope adds a few.
 */
export const MAX_MESSAGE_DEPTH = 128;

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when the JSON `text` nests arrays or objects deeper than `maxDepth`: one pass, strings skipped, nothing built. */
export function nestedDeeperThan(text: string, maxDepth = MAX_MESSAGE_DEPTH): boolean {
	let depth = 0;
	let inString = false;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (inString) {
			if (code === BACKSLASH) index++;
			else if (code === QUOTE) inString = false;
		} else if (code === QUOTE) inString = true;
		else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
			if (++depth > maxDepth) return true;
		} else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
	}
	return false;
}

/** What a client is told when its message nests deeper than `MAX_MESSAGE_DEPTH`. */
export function messageTooDeepText(maxDepth = MAX_MESSAGE_DEPTH): string {
	return (
		`Invalid Request: the message nests arrays or objects more than ${maxDepth} levels deep; this server ` +
		"dropped it unparsed. Send flatter arguments."
	);
}
