const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into text lines, decoding each chunk once (not line by line): the bytes
 * after the chunk's last `\n` wait for the next chunk, so a character is never split.
 */
export class TextLineSplitter {
	private pending: Buffer | undefined;

	/** The complete lines that `chunk` finishes. */
	push(chunk: Buffer): string[] {
		const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
		const lastNewline = data.lastIndexOf(NEWLINE);
		if (lastNewline === -1) {
			this.pending = Buffer.from(data);
			return [];
		}
		this.pending = lastNewline + 1 < data.length ? Buffer.from(data.subarray(lastNewline + 1)) : undefined;
		return data.toString("utf8", 0, lastNewline).split("\n");
	}

	/** The last line when the stream did not end with `\n`. */
	flush(): string[] {
		const rest = this.pending;
		this.pending = undefined;
		return rest && rest.length > 0 ? [rest.toString("utf8")] : [];
	}
}
