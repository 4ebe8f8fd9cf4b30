/** A piece of streamed content, routed to thinking or text. */
export interface ContentSegment {
	kind: "thinking" | "text";
	text: string;
}

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Splits a leading `<think>…</think>` section out of streamed content. Local reasoning models
 * (Qwen3, DeepSeek-R1, …) served without a reasoning parser put their thinking in the content
 * this way. Tags may be split across deltas; only a section at the very start counts, so a
 * reply that merely mentions `<think>` later stays text.
 */
export class ThinkTagSplitter {
	private state: "start" | "thinking" | "gap" | "text" = "start";
	private pending = "";

	/** Feeds a content delta; returns the segments that are certain so far. */
	push(delta: string): ContentSegment[] {
		this.pending += delta;
		const segments: ContentSegment[] = [];
		if (this.state === "start") {
			const trimmed = this.pending.trimStart();
			if (trimmed.length < OPEN.length && OPEN.startsWith(trimmed)) return segments;
			if (trimmed.startsWith(OPEN)) {
				this.state = "thinking";
				this.pending = trimmed.slice(OPEN.length);
			} else {
				this.state = "text";
			}
		}
		if (this.state === "thinking") {
			const end = this.pending.indexOf(CLOSE);
			if (end < 0) {
				// Hold back a tail that could be the start of the closing tag.
				const keep = partialSuffix(this.pending, CLOSE);
				const ready = this.pending.slice(0, this.pending.length - keep);
				if (ready) segments.push({ kind: "thinking", text: ready });
				this.pending = this.pending.slice(this.pending.length - keep);
				return segments;
			}
			const thinking = this.pending.slice(0, end);
			if (thinking) segments.push({ kind: "thinking", text: thinking });
			this.pending = this.pending.slice(end + CLOSE.length);
			this.state = "gap";
		}
		if (this.state === "gap") {
			// The blank lines after the closing tag belong to neither part.
			this.pending = this.pending.replace(/^\s+/, "");
			if (!this.pending) return segments;
			this.state = "text";
		}
		if (this.pending) segments.push({ kind: "text", text: this.pending });
		this.pending = "";
		return segments;
	}

	/** Returns whatever is held back, at the end of the stream. */
	flush(): ContentSegment[] {
		const rest = this.pending;
		this.pending = "";
		if (!rest) return [];
		return [{ kind: this.state === "thinking" ? "thinking" : "text", text: rest }];
	}
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
	for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
		if (tag.startsWith(text.slice(text.length - length))) return length;
	}
	return 0;
}
