/**
 * Reads ahead from a stream of batches, up to `cap` items, then pauses; `drain` hands out what
 * was read and continues from the source. Lets several files be searched at once while memory
 * stays bounded however many matches one file holds.
 */
export class Prefetch<TItem> {
	private readonly batches: TItem[][] = [];
	private finished = false;
	private readonly reading: Promise<void>;

	constructor(
		private readonly source: AsyncGenerator<TItem[]>,
		cap: number,
	) {
		this.reading = this.readAhead(cap);
		// Failures surface in drain(); until then they must not count as unhandled.
		this.reading.catch(() => {});
	}

	private async readAhead(cap: number): Promise<void> {
		let count = 0;
		while (count < cap) {
			const next = await this.source.next();
			if (next.done) {
				this.finished = true;
				return;
			}
			this.batches.push(next.value);
			count += next.value.length;
		}
	}

	/** Everything read ahead, then the rest of the source. */
	async *drain(): AsyncGenerator<TItem[]> {
		let complete = false;
		try {
			await this.reading;
			yield* this.batches;
			this.batches.length = 0;
			while (!this.finished) {
				const next = await this.source.next();
				if (next.done) break;
				yield next.value;
			}
			complete = true;
		} finally {
			// The consumer stopped early: release the source (its open file) now.
			if (!complete) this.close();
		}
	}

	/** Stops the source (closing what it holds open), without waiting for it. */
	close(): void {
		this.source.return(undefined).catch(() => {});
	}
}
