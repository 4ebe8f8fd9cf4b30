const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into lines without decoding it: each chunk gives the complete lines it
 * ends, the unfinished tail waits for the next chunk. Lines exclude the `\n`.
 */
export class LineSplitter {
	// The unfinished line's pieces, joined once when its end arrives: joining on every chunk
	// would copy a long line (a minified file's) once per chunk, quadratic in its length.
	private pending: Buffer[] = [];

	/** The complete lines that `chunk` finishes, as views into the chunk where possible. */
	push(chunk: Buffer): Buffer[] {
		const lines: Buffer[] = [];
		let start = 0;
		let newline = chunk.indexOf(NEWLINE);
		if (newline === -1) {
			// Copy: the stream may reuse the chunk's memory after we return.
			if (chunk.length > 0) this.pending.push(Buffer.from(chunk));
			return lines;
		}
		if (this.pending.length > 0) {
			this.pending.push(chunk.subarray(0, newline));
			lines.push(Buffer.concat(this.pending));
			this.pending = [];
			start = newline + 1;
			newline = chunk.indexOf(NEWLINE, start);
		}
		while (newline !== -1) {
			lines.push(chunk.subarray(start, newline));
			start = newline + 1;
			newline = chunk.indexOf(NEWLINE, start);
		}
		if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
		return lines;
	}

	/** The last line when the stream did not end with `\n`. */
	flush(): Buffer[] {
		const rest = this.pending;
		this.pending = [];
		return rest.length > 0 ? [Buffer.concat(rest)] : [];
	}
}

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
