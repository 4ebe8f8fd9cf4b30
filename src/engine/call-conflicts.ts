/** How one call of a batch is scheduled against the others. */
export interface CallFootprint {
	/** True for a call of a `sequential` tool (or in `sequential` mode): it must not overlap a call that touches what it touches. */
	exclusive: boolean;
	/**
	 * What the call touches (`ToolTarget.touches`), or undefined when that is not known (a
	 * command, a search): the call then touches everything.
	 */
	keys: readonly string[] | undefined;
}

interface Entry extends CallFootprint {
	done: Promise<void>;
	/** Every key its keys lie below (`ancestorsOf`), worked out once for its adding and its removal. */
	ancestors: readonly string[];
}

/** Every key a key lies below: `""` (the root) and `/a` for `/a/b`. */
function ancestorsOf(key: string): string[] {
	const ancestors: string[] = [];
	for (let index = key.indexOf("/"); index !== -1; index = key.indexOf("/", index + 1)) {
		ancestors.push(key.slice(0, index));
	}
	return ancestors;
}

function addTo(index: Map<string, Set<Entry>>, key: string, entry: Entry): void {
	let entries = index.get(key);
	if (!entries) {
		entries = new Set();
		index.set(key, entries);
	}
	entries.add(entry);
}

/** `found` with `entries` added, a new set when there was none and `entries` holds any. */
function gather(found: Set<Entry> | undefined, entries: Set<Entry> | undefined): Set<Entry> | undefined {
	if (!entries || entries.size === 0) return found;
	const into = found ?? new Set<Entry>();
	for (const entry of entries) into.add(entry);
	return into;
}

function removeFrom(index: Map<string, Set<Entry>>, key: string, entry: Entry): void {
	const entries = index.get(key);
	if (!entries) return;
	entries.delete(entry);
	if (entries.size === 0) index.delete(key);
}

/**
 * The calls of a batch that have been started and not yet settled, indexed by what they touch, so
 * a new call finds the earlier ones it must wait for without looking at the others. Two calls
 * conflict when at least one is exclusive and what they touch overlaps: a key overlaps itself and
 * every key below it (`/a` and `/a/b`), an unknown footprint overlaps everything. So a batch of
 * writes to different files runs at once, while two writes of one file, a read after a write of
 * its file, and anything next to a command keep their source order.
 */
export class PendingCalls {
	private readonly all = new Set<Entry>();
	private readonly exclusive = new Set<Entry>();
	private readonly unknown = new Set<Entry>();
	private readonly byKey = new Map<string, Set<Entry>>();
	private readonly byAncestor = new Map<string, Set<Entry>>();
	/**
	 * `ancestorsOf` by folder: the calls of a batch mostly share their folders, and the same string
	 * objects then keep their hash for the index's look-ups (a key sliced anew is hashed anew).
	 */
	private readonly folderAncestors = new Map<string, readonly string[]>();

	/** How many calls are pending. */
	get size(): number {
		return this.all.size;
	}

	/**
	 * What an earlier call with an unknown footprint makes `call` wait for (it overlaps everything),
	 * so a call behind a command is looked at only once the command is done.
	 */
	unknownConflicts(call: Pick<CallFootprint, "exclusive">): Promise<void>[] {
		if (this.unknown.size === 0) return [];
		return [...this.unknown].filter((entry) => call.exclusive || entry.exclusive).map((entry) => entry.done);
	}

	/** The pending calls `call` must wait for before it may start (empty: it may start now). */
	conflicts(call: CallFootprint): Promise<void>[] {
		if (this.all.size === 0) return [];
		if (call.keys === undefined) return [...(call.exclusive ? this.all : this.exclusive)].map((entry) => entry.done);
		// Made only once a pending call is found (a batch of writes to different files finds none).
		let found = this.unknown.size > 0 ? new Set<Entry>(this.unknown) : undefined;
		// Index loops here and below: a batch of 1,000 writes runs them mostly before they are optimized,
		// where each step of an iterator makes an object.
		const { keys } = call;
		for (let index = 0; index < keys.length; index++) {
			const key = keys[index] as string;
			found = gather(found, this.byKey.get(key));
			found = gather(found, this.byAncestor.get(key));
			const ancestors = this.ancestorsOf(key);
			for (let above = 0; above < ancestors.length; above++)
				found = gather(found, this.byKey.get(ancestors[above] as string));
		}
		if (!found) return [];
		const waits: Promise<void>[] = [];
		for (const entry of found) if (call.exclusive || entry.exclusive) waits.push(entry.done);
		return waits;
	}

	/** Records a started call until `done` settles (it must not reject). */
	add(call: CallFootprint, done: Promise<void>): void {
		const { exclusive, keys } = call;
		const ancestors =
			keys?.length === 1 ? this.ancestorsOf(keys[0] as string) : (keys ?? []).flatMap((key) => this.ancestorsOf(key));
		const entry: Entry = { exclusive, keys, done, ancestors };
		this.all.add(entry);
		if (exclusive) this.exclusive.add(entry);
		if (!keys) this.unknown.add(entry);
		if (keys) for (let index = 0; index < keys.length; index++) addTo(this.byKey, keys[index] as string, entry);
		for (let index = 0; index < ancestors.length; index++) addTo(this.byAncestor, ancestors[index] as string, entry);
		void done.then(() => this.remove(entry));
	}

	/** Every key `key` lies below (see the free `ancestorsOf`), the same array for every key of one folder. */
	private ancestorsOf(key: string): readonly string[] {
		const cut = key.lastIndexOf("/");
		if (cut === -1) return [];
		const folder = key.slice(0, cut);
		let ancestors = this.folderAncestors.get(folder);
		if (!ancestors) {
			ancestors = [...ancestorsOf(folder), folder];
			this.folderAncestors.set(folder, ancestors);
		}
		return ancestors;
	}

	private remove(entry: Entry): void {
		this.all.delete(entry);
		this.exclusive.delete(entry);
		this.unknown.delete(entry);
		const { keys, ancestors } = entry;
		if (keys) for (let index = 0; index < keys.length; index++) removeFrom(this.byKey, keys[index] as string, entry);
		for (let index = 0; index < ancestors.length; index++)
			removeFrom(this.byAncestor, ancestors[index] as string, entry);
	}
}

/** True when every key of `inner` is one of `outer`'s or lies below one (so waiting for `outer`'s conflicts covered it). */
export function coveredBy(inner: readonly string[] | undefined, outer: readonly string[] | undefined): boolean {
	if (outer === undefined || inner === outer) return true;
	if (inner === undefined) return false;
	return inner.every((key) => outer.some((wider) => key === wider || key.startsWith(`${wider}/`)));
}

/**
 * Waits for the calls `conflicts` returned, or undefined when there are none: then no turn of the
 * microtask queue is taken (a batch of writes to different files).
 */
export function settledAll(promises: readonly Promise<void>[]): Promise<unknown> | undefined {
	return promises.length === 0 ? undefined : Promise.all(promises);
}
