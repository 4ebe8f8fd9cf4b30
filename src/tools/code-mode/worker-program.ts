/**
 * The program of the worker thread that runs one code-mode program in QuickJS. It is written as
 * self-contained functions (no imports, no outer names but each other) and started from their
 * source text (`new Worker(…, { eval: true })`), so it runs the same from the compiled package and
 * from the bundled CLI. The worker has a stack of its own, so QuickJS's recursion never meets the
 * stack of the thread that runs the engine, and the host ends it with `terminate()` whatever state
 * the interpreter is in (nothing is disposed by hand: a dispose with a leaked handle aborts the module).
 *
 * Messages, worker → host: `{ type: "call", id, name, args }` (args as JSON text),
 * `{ type: "print", text }`, a `ProgramReport`. Host → worker: `{ type: "reply", id, reply }`
 * (reply as JSON text: `{ value }` or `{ error, details }`).
 */
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";

/**
 * What the worker needs to start, in `workerData`: the same for every program of the same code
 * tool, so a worker can start before its program is known (a warm spare, `interpreter-workers.ts`).
 */
export interface WorkerStart {
	/** Resolved file paths of the packages the worker requires. */
	paths: { core: string; variant: string; sucrase: string };
	/** QuickJS heap limit, in bytes (it sizes the WebAssembly memory the module is made with). */
	memoryBytes: number;
}

/** The program the worker runs, in its one `{ type: "program" }` message. */
export interface WorkerProgram {
	/** The program as the model wrote it (JavaScript or TypeScript). */
	code: string;
	/** The names under `tools`. */
	toolNames: string[];
	/** QuickJS heap limit, in bytes. */
	memoryBytes: number;
	/** QuickJS stack limit, in bytes. */
	stackBytes: number;
	/** Interpreter time allowed (time spent waiting on tools does not count), in ms. */
	cpuMs: number;
	/** Most characters of the returned value and of each printed piece handed out of the interpreter. */
	maxTextChars: number;
	/** Source run before the program (`interpreterPrelude`). */
	prelude: string;
	/** Source of a function that describes a thrown value (`describeError`). */
	describeError: string;
}

/** Which bound stopped a program. */
export type ProgramBound = "cpu" | "memory" | "stack";

/** How a program ended, as the worker reports it. */
export type ProgramReport =
	| { type: "done"; status: "returned"; value: string | undefined; valueChars: number }
	| { type: "done"; status: "threw"; error: string; bound?: ProgramBound }
	| { type: "done"; status: "never-settles" }
	| { type: "done"; status: "syntax"; error: string };

type Post = (message: unknown) => void;

/** The program as a script for QuickJS: its body inside an async function (top-level await and return work), types stripped. */
function compileProgram(sucrase: typeof import("sucrase"), code: string): { source: string } | { error: string } {
	const head = "globalThis.__toolbeltMain = (async () => {\n";
	try {
		const source = sucrase.transform(`${head}${code}\n})();`, {
			transforms: ["typescript"],
			disableESTransforms: true,
		});
		return { source: source.code };
	} catch (error) {
		const text = String((error as Error).message ?? error);
		return {
			error: text.replace(
				/\((\d+):(\d+)\)/,
				(_, line, column) => `(line ${Number(line) - 1}, column ${Number(column) + 1})`,
			),
		};
	}
}

/** Runs the compiled program in a fresh runtime with the bounds of `input`, answering `port`'s replies. */
function interpret(
	module: QuickJSWASMModule,
	input: WorkerProgram,
	source: string,
	port: import("node:worker_threads").MessagePort,
	listen: (onReply: (message: { type: string; id: number; reply: string }) => void) => void,
): void {
	const post: Post = (message) => port.postMessage(message);
	const runtime = module.newRuntime();
	runtime.setMemoryLimit(input.memoryBytes);
	runtime.setMaxStackSize(input.stackBytes);
	let used = 0;
	let segmentStart = 0;
	let cpuBound = false;
	runtime.setInterruptHandler(() => {
		if (used + (performance.now() - segmentStart) <= input.cpuMs) return false;
		cpuBound = true;
		return true;
	});
	// Only time inside the interpreter counts: waiting on tools is not the program's CPU.
	const timed = <T>(work: () => T): T => {
		segmentStart = performance.now();
		try {
			return work();
		} finally {
			used += performance.now() - segmentStart;
		}
	};
	const vm = runtime.newContext();
	const pending = new Map<number, ReturnType<QuickJSContext["newPromise"]>>();
	let finished = false;
	const finish = (report: ProgramReport) => {
		if (finished) return;
		finished = true;
		post(report);
	};
	const failed = (handle: QuickJSHandle) => {
		const text = describe(vm, input.describeError, handle);
		const bound = /out of memory/i.test(text)
			? "memory"
			: cpuBound
				? "cpu"
				: /stack overflow/i.test(text)
					? "stack"
					: undefined;
		finish({ type: "done", status: "threw", error: text, ...(bound ? { bound } : {}) });
	};
	installBridge(vm, input, post, pending);
	const prelude = timed(() => vm.evalCode(input.prelude, "prelude.js"));
	if (prelude.error) {
		failed(prelude.error);
		return;
	}
	const started = timed(() => vm.evalCode(source, "program.js"));
	if (started.error) {
		const text = describe(vm, input.describeError, started.error);
		if (/^SyntaxError/.test(text)) finish({ type: "done", status: "syntax", error: text });
		else failed(started.error);
		return;
	}
	void vm.resolvePromise(vm.getProp(vm.global, "__toolbeltMain")).then((settled) => {
		if (settled.error) return failed(settled.error);
		const describer = vm.getProp(vm.global, "__toolbeltDescribe");
		const described = timed(() => vm.callFunction(describer, vm.undefined, settled.value));
		if (described.error) return failed(described.error);
		const pair = JSON.parse(vm.getString(described.value)) as { text: string | null; chars: number };
		finish({ type: "done", status: "returned", value: pair.text ?? undefined, valueChars: pair.chars });
	});
	const pump = () => {
		const jobs = timed(() => runtime.executePendingJobs());
		if (jobs.error) return failed(jobs.error);
		// resolvePromise settles on the host's microtask queue: look once it has run.
		setImmediate(() => {
			if (!finished && pending.size === 0) finish({ type: "done", status: "never-settles" });
		});
	};
	listen((message) => {
		const deferred = message.type === "reply" && !finished ? pending.get(message.id) : undefined;
		if (!deferred) return;
		pending.delete(message.id);
		deferred.resolve(vm.newString(message.reply));
		pump();
	});
	pump();
}

/** The host's side of `tools` and `console` inside the interpreter (the prelude takes them off the global object). */
function installBridge(
	vm: QuickJSContext,
	input: WorkerProgram,
	post: Post,
	pending: Map<number, ReturnType<QuickJSContext["newPromise"]>>,
): void {
	let nextId = 1;
	const call = vm.newFunction("call", (nameHandle, argsHandle) => {
		const id = nextId++;
		const deferred = vm.newPromise();
		pending.set(id, deferred);
		post({ type: "call", id, name: vm.getString(nameHandle), args: vm.getString(argsHandle) });
		return deferred.handle;
	});
	const print = vm.newFunction("print", (textHandle) => {
		post({ type: "print", text: vm.getString(textHandle) });
	});
	vm.setProp(vm.global, "__toolbeltCall", call);
	vm.setProp(vm.global, "__toolbeltPrint", print);
	vm.setProp(vm.global, "__toolbeltNames", vm.newString(JSON.stringify(input.toolNames)));
	vm.setProp(vm.global, "__toolbeltMaxChars", vm.newNumber(input.maxTextChars));
}

/** A thrown value as text, by the interpreter's own `describeError` (it may be any value). */
function describe(vm: QuickJSContext, describeError: string, handle: QuickJSHandle): string {
	const fallback = "the program threw a value that cannot be described";
	const describer = vm.evalCode(describeError);
	if (describer.error) return fallback;
	const text = vm.callFunction(describer.value, vm.undefined, handle);
	return text.error ? fallback : vm.getString(text.value);
}

/**
 * The worker's main function; `require` is the worker's own. It loads the transpiler and the
 * interpreter's module first, then runs the one program its first `{ type: "program" }` message
 * brings (a worker runs one program and is ended after it, so no program sees another's state).
 */
function workerProgram(require: (id: string) => unknown): void {
	const threads = require("node:worker_threads") as typeof import("node:worker_threads");
	const port = threads.parentPort as import("node:worker_threads").MessagePort;
	const start = threads.workerData as WorkerStart;
	const sucrase = require(start.paths.sucrase) as typeof import("sucrase");
	const core = require(start.paths.core) as typeof import("quickjs-emscripten-core");
	const variant = (require(start.paths.variant) as { default: never }).default;
	// QuickJS's own limit misses memory that grows by realloc in this build (no malloc_usable_size):
	// the WebAssembly memory itself is capped at its start-up size (16 MiB: the C stack and static
	// data) plus the bound, so no allocation can pass it; QuickJS then throws "out of memory".
	const pageBytes = 65_536;
	const startPages = 256;
	const { Memory } = (
		globalThis as unknown as { WebAssembly: { Memory: new (limits: { initial: number; maximum: number }) => never } }
	).WebAssembly;
	const wasmMemory = new Memory({
		initial: startPages,
		maximum: startPages + Math.ceil(start.memoryBytes / pageBytes),
	});
	const loaded = core.newQuickJSWASMModuleFromVariant(core.newVariant(variant, { wasmMemory }));
	// A first transform while no program waits: the transpiler's code runs cold only once.
	compileProgram(sucrase, "const warm: number = 1;\nreturn warm;");
	// Caught here so that a module that cannot load is reported to the program, not as unhandled.
	loaded.catch(() => {});
	// One listener for the worker's life: the first message is the program, the rest its replies.
	let onReply: ((message: { type: string; id: number; reply: string }) => void) | undefined;
	let started = false;
	port.on("message", (message: { type: string; id: number; reply: string; program: WorkerProgram }) => {
		if (started) {
			onReply?.(message);
			return;
		}
		if (message.type !== "program") return;
		started = true;
		const program = message.program;
		const compiled = compileProgram(sucrase, program.code);
		if ("error" in compiled) {
			port.postMessage({ type: "done", status: "syntax", error: compiled.error } satisfies ProgramReport);
			return;
		}
		loaded.then(
			(module) =>
				interpret(module, program, compiled.source, port, (handler) => {
					onReply = handler;
				}),
			(error: unknown) =>
				port.postMessage({ type: "done", status: "threw", error: `The interpreter could not start: ${String(error)}` }),
		);
	});
}

/**
 * The worker's source text, for `new Worker(source, { eval: true })`. A transpiler that keeps
 * function names (esbuild's keepNames, as tsx and vitest run it) wraps functions in a `__name`
 * helper defined outside them: the source defines a harmless one of its own.
 */
export const workerProgramSource = [
	"var __name = (target) => target;",
	compileProgram.toString(),
	interpret.toString(),
	installBridge.toString(),
	describe.toString(),
	`(${workerProgram.toString()})(require);`,
].join("\n");
