import type { ChildProcessWithoutNullStreams } from "node:child_process";

/** The most names sent to the remote grep ahead of those it has finished: bounds what is held here. */
export const MAX_NAMES_AHEAD = 8000;

/**
 * The line the remote grep script prints after each batch: this prefix, then how many names it
 * held. Its NUL comes first: a line of grep's starts with a file name or a line number, never a NUL.
 */
export const BATCH_DONE_PREFIX = "\0B ";

/** Opens the lines of one file searched by itself (`N:text`, no name): this prefix, then its place in the batch. */
export const ONE_FILE_START = "\0F ";

/** Closes the lines of one file searched by itself. */
export const ONE_FILE_END = "\0E";

/**
 * A name as one line of the feed: as it is, or, when it holds a newline, `/` and the name with
 * `\\` and `\n` escaped (`printf %b` reads it back there). A relative path never starts with `/`.
 */
export function feedLine(name: string): string {
	if (!name.includes("\n")) return name;
	return `/${name.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`;
}

/**
 * The names sent to the remote grep and not yet done, for telling `name:12:text` apart: grep
 * reports each batch done (`BATCH_DONE_PREFIX`), so this holds at most `MAX_NAMES_AHEAD` names
 * and a batch, never the tree's whole file list.
 */
export class PendingNames {
	private readonly queue: string[] = [];
	private head = 0;
	private waiting: (() => void) | undefined;
	/** The names sent and not yet done. */
	readonly known = new Set<string>();

	/** How many names are sent and not yet done. */
	get size(): number {
		return this.queue.length - this.head;
	}

	/** The name at `index` in the batch grep is on (the oldest batch not done). */
	nameAt(index: number): string | undefined {
		return this.queue[this.head + index];
	}

	/** Notes names as sent. */
	add(names: readonly string[]): void {
		for (const name of names) {
			this.queue.push(name);
			this.known.add(name);
		}
	}

	/** Forgets the `count` oldest names (a batch grep finished) and wakes a waiting sender. */
	done(count: number): void {
		const end = Math.min(this.queue.length, this.head + count);
		for (let index = this.head; index < end; index++) this.known.delete(this.queue[index] as string);
		this.head = end;
		// Drop the forgotten part now and then, not per batch: a splice moves the rest.
		if (this.head > 4096 && this.head * 2 > this.queue.length) {
			this.queue.splice(0, this.head);
			this.head = 0;
		}
		this.wake();
	}

	/** Resolves at the next `done` (or `wake`). */
	progress(): Promise<void> {
		return new Promise((resolve) => {
			this.waiting = resolve;
		});
	}

	/** Wakes a sender waiting in `progress` (also when the search ends). */
	wake(): void {
		const waiting = this.waiting;
		this.waiting = undefined;
		waiting?.();
	}
}

/**
 * Writes the names to grep's stdin as they come, never more than `MAX_NAMES_AHEAD` ahead of what
 * grep finished, and waits for the pipe to drain; ends stdin when the names end or `stopped()`.
 */
export async function feedNames(
	names: AsyncIterable<string[]> | Iterable<string[]>,
	child: ChildProcessWithoutNullStreams,
	pending: PendingNames,
	stopped: () => boolean,
): Promise<void> {
	try {
		for await (const batch of names) {
			if (stopped()) return;
			while (pending.size > MAX_NAMES_AHEAD && !stopped()) await pending.progress();
			if (stopped()) return;
			pending.add(batch);
			if (!child.stdin.write(batch.map((name) => `${feedLine(name)}\n`).join(""))) await drained(child);
		}
	} finally {
		child.stdin.end();
	}
}

/** Resolves when grep's stdin drained, or grep ended (then nothing more is written). */
function drained(child: ChildProcessWithoutNullStreams): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			child.stdin.off("drain", done);
			child.off("close", done);
			resolve();
		};
		child.stdin.on("drain", done);
		child.on("close", done);
	});
}
