/**
 * Node's own modules that the bundle requires as it starts (a module's imports are required when
 * it is initialized) but that a one-shot read, a listing or an MCP `initialize` never uses:
 * `child_process` (with `net` and `dgram` behind it) and `crypto` (hashes, random ids: wanted only
 * once a call changes or snapshots a file, or a hook runs); the sandbox's network policy's `http`,
 * `https`, `tls` (which loads `crypto` whole) and `dns/promises`; `zlib` (PDF streams),
 * `worker_threads` (code mode, the backtracking search) and `timers/promises` (waits of the process
 * tree and background jobs); `fs/promises` (the local disk reads and writes small files with
 * synchronous calls) and `readline` (prompts, line-by-line input); `net` (the hooks' launcher, the
 * network policy's address checks) and `tty` (is a descriptor a terminal: asked only of a character
 * device, `io.ts`), which a start whose result goes into a file need not load at all. Each costs one
 * to several milliseconds to load; together they were 20–30 ms of a `toolbelt tool read`. Only
 * modules whose exports are used inside functions belong here: a stand-in's first property read, at
 * any time, loads the real module.
 */
const DEFERRED = new Set(
	[
		"child_process",
		"crypto",
		"http",
		"https",
		"tls",
		"dns/promises",
		"zlib",
		"worker_threads",
		"timers/promises",
		"fs/promises",
		"readline",
		"readline/promises",
		"net",
		"tty",
	].flatMap((name) => [name, `node:${name}`]),
);

/**
 * A `require` for the bundle that hands out the deferred modules as stand-ins which load the
 * real module on first use of any of its properties, and everything else as is.
 */
export function deferringRequire(base: NodeJS.Require): NodeJS.Require {
	const standIns = new Map<string, object>();
	const deferring = (id: string): unknown => {
		if (!DEFERRED.has(id)) return base(id);
		let standIn = standIns.get(id);
		if (!standIn) {
			standIn = onFirstUse(() => base(id) as object);
			standIns.set(id, standIn);
		}
		return standIn;
	};
	return Object.assign(deferring, base) as NodeJS.Require;
}

/** A stand-in object that loads the real one on the first property read, listing or check. */
function onFirstUse(load: () => object): object {
	let real: object | undefined;
	const target = () => {
		real ??= load();
		return real;
	};
	return new Proxy(
		{},
		{
			get: (_, key) => Reflect.get(target(), key),
			has: (_, key) => Reflect.has(target(), key),
			ownKeys: () => Reflect.ownKeys(target()),
			getOwnPropertyDescriptor: (_, key) => {
				const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
				return descriptor && { ...descriptor, configurable: true };
			},
			getPrototypeOf: () => Reflect.getPrototypeOf(target()),
		},
	);
}
