import { type JsonRpcId, TopLevelIdScanner } from "./top-level-id.js";

const NEWLINE = 0x0a;

/** What `BoundedLineSplitter` found: a whole line, or a line over the limit that was dropped. */
export type BoundedLine =
	| { kind: "line"; text: string }
	| {
			kind: "oversized";
			/** The size of the dropped line, in bytes. */
			bytes: number;
			/** Its top-level JSON `id`, when it had one. */
			id: JsonRpcId | undefined;
	  };

/**
 * Splits a byte stream into newline-delimited lines holding at most `maxLineBytes` of one line:
 * a longer line is not buffered but dropped as it arrives, up to its newline, keeping only its
 * size and its top-level JSON id (so it can be answered). Memory stays at the limit whatever
 * arrives; the stream continues with the next line.
 */
export class BoundedLineSplitter {
	private pending: Buffer[] = [];
	private pendingBytes = 0;
	/** Set while dropping a line that outgrew the limit. */
	private dropping: { bytes: number; scanner: TopLevelIdScanner } | undefined;

	/**
	 * @param maxLineBytes The most bytes of one line kept (without its newline).
	 * @param onLine Receives each line in order. Contract: must not throw.
	 */
	constructor(
		private readonly maxLineBytes: number,
		private readonly onLine: (line: BoundedLine) => void,
	) {}

	/** Reads the next piece of the stream. */
	push(chunk: Buffer): void {
		let start = 0;
		while (start < chunk.length) {
			const newline = chunk.indexOf(NEWLINE, start);
			const end = newline === -1 ? chunk.length : newline;
			this.take(chunk.subarray(start, end));
			if (newline === -1) return;
			this.endLine();
			start = newline + 1;
		}
	}

	/** The stream ended: a last line without a newline still counts. */
	end(): void {
		if (this.pendingBytes > 0 || this.dropping) this.endLine();
	}

	private take(piece: Buffer): void {
		if (piece.length === 0) return;
		if (this.dropping) {
			this.drop(piece);
			return;
		}
		if (this.pendingBytes + piece.length <= this.maxLineBytes) {
			this.pending.push(piece);
			this.pendingBytes += piece.length;
			return;
		}
		this.dropping = { bytes: 0, scanner: new TopLevelIdScanner() };
		for (const kept of this.pending) this.drop(kept);
		this.pending = [];
		this.pendingBytes = 0;
		this.drop(piece);
	}

	private drop(piece: Buffer): void {
		if (!this.dropping) return;
		this.dropping.bytes += piece.length;
		this.dropping.scanner.feed(piece);
	}

	private endLine(): void {
		if (this.dropping) {
			const { bytes, scanner } = this.dropping;
			this.dropping = undefined;
			this.onLine({ kind: "oversized", bytes, id: scanner.id });
			return;
		}
		const text = Buffer.concat(this.pending, this.pendingBytes).toString("utf8");
		this.pending = [];
		this.pendingBytes = 0;
		this.onLine({ kind: "line", text });
	}
}
