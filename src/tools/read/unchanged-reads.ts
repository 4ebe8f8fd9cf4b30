import { createHash } from "node:crypto";
import type { ToolResult } from "../../engine/index.js";
import type { ReadToolDetails } from "./types.js";

/** Ranges remembered per tool: enough for a long session, bounded for a runaway one. */
const MAX_REMEMBERED = 2000;

interface SeenRead {
	/** SHA-256 of the text the model was given. */
	hash: string;
	/** When it was given. */
	at: Date;
}

/** What `ReadMemory.check` found. */
export type RereadVerdict = { unchanged: false } | { unchanged: true; since: Date };

/**
 * The ranges of text files this read tool returned in the session (one tool instance is one
 * session's tool), keyed by file and range, with a hash of what was shown: a repeat of the same
 * read of an unchanged file can then answer in one line instead of the content again.
 * Kept in the tool, not the safety layer, so it works without any hooks and forgets nothing a
 * guard decides; the stale-write check still hashes what the model saw on its own.
 */
export class ReadMemory {
	private readonly seen = new Map<string, SeenRead>();

	/** Compares `text` with the last content shown for `key`; remembers it when it is new or changed. */
	check(key: string, text: string): RereadVerdict {
		const hash = createHash("sha256").update(text).digest("hex");
		const last = this.seen.get(key);
		if (last && last.hash === hash) return { unchanged: true, since: last.at };
		this.seen.delete(key);
		this.seen.set(key, { hash, at: new Date() });
		if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
		return { unchanged: false };
	}
}

/** The key of a read: file and the range asked for. */
export function readKey(absolutePath: string, offset: number | undefined, limit: number | undefined): string {
	return `${absolutePath}\0${Math.max(1, offset ?? 1)}\0${limit ?? ""}`;
}

/** The short answer to a repeated read of an unchanged range. */
export function unchangedResult(
	result: ToolResult<ReadToolDetails>,
	shownPath: string,
	since: Date,
): ToolResult<ReadToolDetails> {
	const at = since
		.toISOString()
		.replace("T", " ")
		.replace(/\.\d+Z$/, " UTC");
	const text = `${shownPath} is unchanged since your last read at ${at} (same content, same range), so it is not repeated. Use that earlier result; if it is no longer in your context, read again with refresh: true.`;
	return { content: [{ type: "text", text }], details: { ...result.details, unchanged: true } as ReadToolDetails };
}
