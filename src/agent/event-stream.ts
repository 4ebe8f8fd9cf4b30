/**
 * A push-based async queue: a producer `push`es events and `end`s with a result; one consumer
 * iterates the events. Events pushed before the consumer starts are buffered, so nothing is lost.
 */
export class EventStream<TEvent, TResult> implements AsyncIterable<TEvent> {
	private readonly queue: TEvent[] = [];
	private waiting: ((next: IteratorResult<TEvent>) => void) | undefined;
	private ended = false;
	private resolveResult!: (result: TResult) => void;
	private readonly resultPromise: Promise<TResult>;

	constructor() {
		this.resultPromise = new Promise<TResult>((resolve) => {
			this.resolveResult = resolve;
		});
	}

	/** Adds an event. Ignored after `end`. */
	push(event: TEvent): void {
		if (this.ended) return;
		const waiting = this.waiting;
		if (waiting) {
			this.waiting = undefined;
			waiting({ value: event, done: false });
		} else {
			this.queue.push(event);
		}
	}

	/** Ends the stream with its result. Later calls are ignored. */
	end(result: TResult): void {
		if (this.ended) return;
		this.ended = true;
		this.resolveResult(result);
		const waiting = this.waiting;
		this.waiting = undefined;
		waiting?.({ value: undefined, done: true });
	}

	/** Resolves with the result once the stream has ended. */
	result(): Promise<TResult> {
		return this.resultPromise;
	}

	async *[Symbol.asyncIterator](): AsyncIterator<TEvent> {
		while (true) {
			const next = this.queue.shift();
			if (next !== undefined) {
				yield next;
				continue;
			}
			if (this.ended) return;
			const item = await new Promise<IteratorResult<TEvent>>((resolve) => {
				this.waiting = resolve;
			});
			if (item.done) return;
			yield item.value;
		}
	}
}
