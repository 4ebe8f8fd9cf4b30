const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into text lines, decoding each chunk once (not line by line): the bytes
 * after the chunk's last `\n` wait for the next chunk, so a character is never split. With
 * `separator` 0 it cuts at NUL bytes instead (`rg --files --null`: a file name may hold `\n`).
 */
export class TextLineSplitter {
	private pending: Buffer | undefined;

	constructor(private readonly separator: 0x0a | 0x00 = NEWLINE) {}

	/** The complete lines that `chunk` finishes. */
	push(chunk: Buffer): string[] {
		const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
		const lastNewline = data.lastIndexOf(this.separator);
		if (lastNewline === -1) {
			this.pending = Buffer.from(data);
			return [];
		}
		this.pending = lastNewline + 1 < data.length ? Buffer.from(data.subarray(lastNewline + 1)) : undefined;
		return data.toString("utf8", 0, lastNewline).split(this.separator === NEWLINE ? "\n" : "\0");
	}

	/** The last line when the stream did not end with `\n`. */
	flush(): string[] {
		const rest = this.pending;
		this.pending = undefined;
		return rest && rest.length > 0 ? [rest.toString("utf8")] : [];
	}
}
