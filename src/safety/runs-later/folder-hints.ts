// Which watched folders may have changed since the last look, from the kernel's change events
// (inotify through fs.watch), so the check before a sandboxed call lists a handful of folders
// instead of stat-ing thousands. Only a hint: a lost event can make toolbelt miss a repository the
// user made between calls (it is then renamed away after the call, as if the call had made it),
// never let a planted one through, because the check after each call stays a full pass. Node does
// not report the kernel's queue overflow, so the hint counts events and gives up (a full pass)
// long before the queue could have filled; a watch that cannot be set or fails does the same.
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";

/** The kernel's default per-instance event queue, when /proc does not say. */
const defaultQueuedEvents = 16_384;

function queuedEventsLimit(): number {
	try {
		const limit = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim());
		return Number.isFinite(limit) && limit > 0 ? limit : defaultQueuedEvents;
	} catch {
		return defaultQueuedEvents;
	}
}

/** Options of `FolderHints`. */
export interface FolderHintsOptions {
	/** The most folders watched; beyond it every check is a full pass. Default: 20,000. */
	maxWatched?: number;
}

/**
 * Change events of a set of folders, collected between looks. `take()` answers the folders that
 * had events since the previous `take()`, or `undefined` when the answer cannot be trusted.
 */
export class FolderHints {
	private readonly watchers = new Map<string, FSWatcher>();
	private changed = new Set<string>();
	private events = 0;
	private trusted = process.platform === "linux";
	private readonly maxWatched: number;
	private readonly maxEvents = Math.floor(queuedEventsLimit() / 2);

	constructor(options: FolderHintsOptions = {}) {
		this.maxWatched = options.maxWatched ?? 20_000;
	}

	/** Starts watching `folder` (before it is listed, so nothing made after the listing is missed). */
	watch(folder: string): void {
		if (!this.trusted || this.watchers.has(folder)) return;
		if (this.watchers.size >= this.maxWatched) {
			this.distrust();
			return;
		}
		try {
			const watcher = watch(folder, { persistent: false }, () => {
				this.events++;
				this.changed.add(folder);
			});
			watcher.on("error", () => this.distrust());
			this.watchers.set(folder, watcher);
		} catch {
			// ENOSPC (the user's watch limit), EMFILE, a folder already gone: fall back to full passes.
			this.distrust();
		}
	}

	/** Stops watching `folder` (dropped from the tree). */
	unwatch(folder: string): void {
		this.watchers.get(folder)?.close();
		this.watchers.delete(folder);
	}

	/**
	 * Waits until the events the kernel queued before this call have been delivered: the poll phase
	 * that reads them lies between two turns of the event loop (one turn alone may start in the
	 * check phase right after a poll).
	 */
	async settle(): Promise<void> {
		if (!this.trusted) return;
		await nextTurn();
		await nextTurn();
	}

	/** The folders with events since the last `take`/`reset`, or `undefined` when a full pass is needed. */
	take(): Set<string> | undefined {
		const changed = this.changed;
		const trusted = this.trusted && this.events < this.maxEvents;
		this.reset();
		return trusted ? changed : undefined;
	}

	/** Forgets the events seen so far (a full pass covers them). */
	reset(): void {
		this.changed = new Set();
		this.events = 0;
	}

	/** Stops every watch. */
	close(): void {
		for (const watcher of this.watchers.values()) watcher.close();
		this.watchers.clear();
	}

	private distrust(): void {
		this.trusted = false;
		this.close();
	}
}
