import { createHash } from "node:crypto";
import type { ToolResult } from "../../engine/index.js";
import type { ReadToolDetails } from "./types.js";

/** Ranges remembered per tool: enough for a long session, bounded for a runaway one. */
const MAX_REMEMBERED = 2000;

interface SeenRead {
	/** SHA-256 of the text the model was given, once taken (see `text`). */
	hash?: string;
	/** The text itself, until its hash is taken after the call that showed it. */
	text?: string;
	/** When it was given. */
	at: Date;
}

/** What `ReadMemory.check` found. */
export type RereadVerdict = { unchanged: false } | { unchanged: true; since: Date };

function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

/**
 * The ranges of text files this read tool returned in the session (one tool instance is one
 * session's tool), keyed by file and range, with a hash of what was shown: a repeat of the same
 * read of an unchanged file can then answer in one line instead of the content again.
 * Kept in the tool, not the safety layer, so it works without any hooks and forgets nothing a
 * guard decides; the stale-write check still hashes what the model saw on its own.
 *
 * A new range's hash is taken after the call, at the next turn of the event loop (the text is held
 * until then): the first hash of a process sets up OpenSSL's digest (~1 ms, an eighth of a first
 * read), which only a later read of the same range needs. A repeat before then compares the text.
 */
export class ReadMemory {
	private readonly seen = new Map<string, SeenRead>();
	private readonly unhashed: SeenRead[] = [];

	/** Compares `text` with the last content shown for `key`; remembers it when it is new or changed. */
	check(key: string, text: string): RereadVerdict {
		const last = this.seen.get(key);
		if (last && (last.text !== undefined ? last.text === text : last.hash === sha256(text))) {
			return { unchanged: true, since: last.at };
		}
		this.seen.delete(key);
		const entry: SeenRead = { text, at: new Date() };
		this.seen.set(key, entry);
		if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
		this.hashLater(entry);
		return { unchanged: false };
	}

	private hashLater(entry: SeenRead): void {
		this.unhashed.push(entry);
		if (this.unhashed.length > 1) return;
		// Unref'd: a process that ends after its call (the CLI's one-shot read) needs no hash.
		setImmediate(() => {
			for (const waiting of this.unhashed.splice(0)) {
				if (waiting.text === undefined) continue;
				waiting.hash = sha256(waiting.text);
				waiting.text = undefined;
			}
		}).unref();
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
