import type { RemoteRunResult } from "./run-remote.js";

/**
 * Reads one reply of the script channel from the loop's stdout: the script's stdout as it came,
 * then `\nTAG CODE ERRLEN\n` and ERRLEN bytes of stderr. TAG is random per request, so no file
 * content can end a reply early; bytes are copied once (no rescanning of what was read), and a
 * tag split across two chunks is still found (the last bytes are held back until the next chunk).
 */
export class ReplyReader {
	private readonly marker: Buffer;
	private readonly parts: Buffer[] = [];
	/** Bytes not yet known to be stdout: they may start the marker, or are the trailer. */
	private held: Buffer = Buffer.alloc(0);
	private stdout: Buffer | undefined;

	constructor(tag: string) {
		this.marker = Buffer.from(`\n${tag} `);
	}

	/**
	 * Takes the next bytes of the loop's output; returns the result once the reply is complete,
	 * with the bytes after it (the next reply's), else undefined (all bytes were taken).
	 */
	push(chunk: Buffer): { result: RemoteRunResult; rest: Buffer } | undefined {
		const data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
		if (this.stdout === undefined) {
			const found = data.indexOf(this.marker);
			if (found === -1) {
				const keep = Math.min(data.length, this.marker.length - 1);
				if (data.length > keep) this.parts.push(data.subarray(0, data.length - keep));
				this.held = Buffer.from(data.subarray(data.length - keep));
				return undefined;
			}
			if (found > 0) this.parts.push(data.subarray(0, found));
			this.stdout = Buffer.concat(this.parts);
			this.parts.length = 0;
			return this.trailer(data.subarray(found + this.marker.length));
		}
		return this.trailer(data);
	}

	/** Parses `CODE ERRLEN\n` and the stderr bytes, holding them until all have come. */
	private trailer(data: Buffer): { result: RemoteRunResult; rest: Buffer } | undefined {
		const newline = data.indexOf(0x0a);
		const [code, errorLength] = newline === -1 ? [] : data.subarray(0, newline).toString("latin1").split(" ");
		const end = newline + 1 + Number(errorLength ?? 0);
		if (newline === -1 || data.length < end) {
			this.held = Buffer.from(data);
			return undefined;
		}
		const stderr = data.subarray(newline + 1, end).toString("utf8");
		const result = { exitCode: Number(code), stdout: this.stdout ?? Buffer.alloc(0), stderr };
		return { result, rest: data.subarray(end) };
	}
}
