import type { Worker } from "node:worker_threads";
import { describeError, interpreterPrelude } from "./interpreter-prelude.js";
import { prepareSpareWorker, takeProgramWorker } from "./interpreter-workers.js";
import type { ProgramBound, ProgramReport, WorkerProgram } from "./worker-program.js";

/** The bounds of one program. Every one is a setting of the code tool (`CodeToolOptions`). */
export interface ProgramLimits {
	/** Interpreter time (waiting on tools does not count), in ms. */
	cpuMs: number;
	/** Interpreter heap, in bytes. */
	memoryBytes: number;
	/** Interpreter stack, in bytes (bounds recursion depth). */
	stackBytes: number;
	/** Tool calls per program. */
	maxToolCalls: number;
	/** Printed output kept (later output is counted, not kept), in bytes. */
	maxOutputBytes: number;
}

/** What a tool call made by the program answers: the value the program gets, or the error it throws. */
export type InnerReply = { value: unknown } | { error: string; details?: unknown };

/** Options of `runProgram`. */
export interface RunProgramOptions {
	/** The program (JavaScript or TypeScript). */
	code: string;
	/** The names under `tools`. */
	toolNames: string[];
	limits: ProgramLimits;
	/** Runs one tool call of the program; must not throw (a failure is an `{ error }` reply). */
	callTool(name: string, args: unknown, signal: AbortSignal): Promise<InnerReply>;
	/** Stops the program and its running tool calls. */
	signal?: AbortSignal;
}

/** How a program ended. */
export interface ProgramOutcome {
	/** `bound`: stopped by a bound (`bound` says which); `crashed`: the interpreter itself failed. */
	status: "returned" | "threw" | "syntax" | "never-settles" | "bound" | "aborted" | "crashed";
	/** What the program printed (up to `maxOutputBytes`). */
	output: string;
	/** Bytes printed beyond `maxOutputBytes`, dropped. */
	outputBytesDropped: number;
	/** The returned value as text (JSON unless it was a string), when one was returned. */
	value?: string;
	/** Characters of the returned value before the interpreter cut it. */
	valueChars?: number;
	/** The error (message and stack) when the program threw, or why the interpreter failed. */
	error?: string;
	/** Which bound stopped the program. */
	bound?: ProgramBound | "toolCalls";
	/** Tool calls the program made. */
	toolCalls: number;
	/** True when the program ran on a worker started before it was asked for (the warm spare). */
	warmStart?: boolean;
}

/** Extra time a silent interpreter gets beyond `cpuMs` (start-up, a host's slow moment) before it is ended from outside. */
const WATCHDOG_GRACE_MS = 10_000;
/** Longest text handed out of the interpreter per printed piece and for the returned value, in characters. */
const MAX_TEXT_CHARS = 1_000_000;

interface RunState {
	options: RunProgramOptions;
	worker: Worker;
	/** Aborts the program's running tool calls when it ends, whatever ended it. */
	calls: AbortController;
	inFlight: Set<Promise<void>>;
	outcome: ProgramOutcome;
	settle: (outcome: ProgramOutcome) => void;
	watchdog: NodeJS.Timeout | undefined;
}

function append(state: RunState, text: string): void {
	const { outcome } = state;
	const line = `${text}\n`;
	const bytes = Buffer.byteLength(line);
	const room = state.options.limits.maxOutputBytes - Buffer.byteLength(outcome.output);
	if (bytes <= room) outcome.output += line;
	else outcome.outputBytesDropped += bytes;
}

/** Ends the interpreter and the program's tool calls; settles once. */
function stop(state: RunState, patch: Partial<ProgramOutcome>): void {
	const settle = state.settle;
	state.settle = () => {};
	if (state.watchdog) clearTimeout(state.watchdog);
	state.calls.abort();
	void state.worker.terminate();
	// Tool calls still running (a program that did not await them) end before the result does.
	void Promise.allSettled([...state.inFlight]).then(() => settle({ ...state.outcome, ...patch }));
}

/** An interpreter silent past its time with no tool call running is stuck where its interrupt cannot reach it. */
function armWatchdog(state: RunState): void {
	if (state.watchdog) clearTimeout(state.watchdog);
	state.watchdog = undefined;
	if (state.inFlight.size > 0) return;
	state.watchdog = setTimeout(
		() => stop(state, { status: "bound", bound: "cpu" }),
		state.options.limits.cpuMs + WATCHDOG_GRACE_MS,
	);
}

function startCall(state: RunState, message: { id: number; name: string; args: string }): void {
	const { outcome } = state;
	outcome.toolCalls++;
	if (outcome.toolCalls > state.options.limits.maxToolCalls) {
		outcome.toolCalls--;
		stop(state, { status: "bound", bound: "toolCalls" });
		return;
	}
	let args: unknown;
	try {
		args = JSON.parse(message.args);
	} catch {
		args = {};
	}
	const call = state.options
		.callTool(message.name, args, state.calls.signal)
		.catch((error: unknown): InnerReply => ({ error: error instanceof Error ? error.message : String(error) }))
		.then((reply) => {
			let text: string;
			try {
				text = JSON.stringify(reply);
			} catch {
				text = JSON.stringify({ error: "The tool's result could not be passed to the program." });
			}
			state.worker.postMessage({ type: "reply", id: message.id, reply: text });
		})
		.finally(() => {
			state.inFlight.delete(call);
			armWatchdog(state);
		});
	state.inFlight.add(call);
	armWatchdog(state);
}

function onReport(state: RunState, report: ProgramReport): void {
	if (report.status === "returned") {
		stop(state, { status: "returned", value: report.value, valueChars: report.valueChars });
	} else if (report.status === "threw") {
		stop(state, report.bound ? { status: "bound", bound: report.bound } : { status: "threw", error: report.error });
	} else if (report.status === "syntax") {
		stop(state, { status: "syntax", error: report.error });
	} else {
		stop(state, { status: "never-settles" });
	}
}

/**
 * Runs one program in QuickJS (WebAssembly) on a worker thread of its own: the program reaches
 * nothing of Node, only `tools.<name>(args)` (each answered by `callTool`) and `console`. Bounded
 * by `limits`; an abort or a bound ends the worker at once and aborts the program's running tool
 * calls, and the outcome arrives after those have settled.
 */
export function runProgram(options: RunProgramOptions): Promise<ProgramOutcome> {
	const outcome: ProgramOutcome = { status: "crashed", output: "", outputBytesDropped: 0, toolCalls: 0 };
	if (options.signal?.aborted) return Promise.resolve({ ...outcome, status: "aborted" });
	const { limits } = options;
	const program: WorkerProgram = {
		code: options.code,
		toolNames: options.toolNames,
		memoryBytes: limits.memoryBytes,
		stackBytes: limits.stackBytes,
		cpuMs: limits.cpuMs,
		maxTextChars: MAX_TEXT_CHARS,
		prelude: interpreterPrelude,
		describeError,
	};
	return new Promise((resolve) => {
		const { worker, warm } = takeProgramWorker(limits.memoryBytes);
		outcome.warmStart = warm;
		worker.postMessage({ type: "program", program });
		const state: RunState = {
			options,
			worker,
			calls: new AbortController(),
			inFlight: new Set(),
			outcome,
			settle: resolve,
			watchdog: undefined,
		};
		const onAbort = () => stop(state, { status: "aborted" });
		options.signal?.addEventListener("abort", onAbort, { once: true });
		const settle = state.settle;
		state.settle = (final) => {
			options.signal?.removeEventListener("abort", onAbort);
			// The next program's worker starts now, while the model reads this one's result.
			prepareSpareWorker(limits.memoryBytes);
			settle(final);
		};
		worker.on("message", (message: { type: string } & Record<string, unknown>) => {
			if (message.type === "print") append(state, String(message.text));
			else if (message.type === "call") startCall(state, message as never);
			else if (message.type === "done") onReport(state, message as unknown as ProgramReport);
		});
		worker.on("error", (error: Error & { code?: string }) => {
			const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
			stop(state, memory ? { status: "bound", bound: "memory" } : { status: "crashed", error: error.message });
		});
		worker.on("exit", () => stop(state, { status: "crashed", error: "The interpreter ended without an answer." }));
		armWatchdog(state);
	});
}
