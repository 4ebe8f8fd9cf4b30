const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into lines without decoding it: each chunk gives the complete lines it
 * ends, the unfinished tail waits for the next chunk. Lines exclude the `\n`.
 */
export class LineSplitter {
	private pending: Buffer | undefined;

	/** The complete lines that `chunk` finishes, as views into the chunk where possible. */
	push(chunk: Buffer): Buffer[] {
		const lines: Buffer[] = [];
		let data = chunk;
		let start = 0;
		let newline = data.indexOf(NEWLINE);
		if (this.pending && newline !== -1) {
			lines.push(Buffer.concat([this.pending, data.subarray(0, newline)]));
			this.pending = undefined;
			start = newline + 1;
			newline = data.indexOf(NEWLINE, start);
		} else if (this.pending) {
			this.pending = Buffer.concat([this.pending, data]);
			return lines;
		}
		while (newline !== -1) {
			lines.push(data.subarray(start, newline));
			start = newline + 1;
			newline = data.indexOf(NEWLINE, start);
		}
		if (start < data.length) {
			// Copy: the stream may reuse the chunk's memory after we return.
			data = Buffer.from(data.subarray(start));
			this.pending = data;
		}
		return lines;
	}

	/** The last line when the stream did not end with `\n`. */
	flush(): Buffer[] {
		const rest = this.pending;
		this.pending = undefined;
		return rest && rest.length > 0 ? [rest] : [];
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
