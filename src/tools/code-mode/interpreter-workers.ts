import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { type WorkerStart, workerProgramSource } from "./worker-program.js";

/**
 * Worker threads for programs, with one warm spare. Starting a worker is most of a program's cost
 * (the thread, the transpiler's modules, the interpreter's WebAssembly: about a second on a loaded
 * machine, against milliseconds for the program itself), so after a program has ended, the next
 * one's worker is started while the model thinks. Each worker still runs exactly one program and
 * is ended after it: a spare is a fresh worker that has loaded its modules, never a used one.
 */

let packagePaths: WorkerStart["paths"] | undefined;

/** The installed files the worker requires (resolved here: the worker's own `require` starts in the current folder). */
function workerPackagePaths(): WorkerStart["paths"] {
	if (packagePaths) return packagePaths;
	const require = createRequire(import.meta.url);
	packagePaths = {
		core: require.resolve("quickjs-emscripten-core"),
		variant: require.resolve("@jitl/quickjs-wasmfile-release-sync"),
		sucrase: require.resolve("sucrase"),
	};
	return packagePaths;
}

/** A started worker, and whether it was the warm spare. */
export interface ProgramWorker {
	worker: Worker;
	/** True when the worker had started before its program was asked for. */
	warm: boolean;
}

interface Spare {
	memoryBytes: number;
	worker: Worker;
	alive: boolean;
}

let spare: Spare | undefined;

function startWorker(memoryBytes: number): Worker {
	const start: WorkerStart = { paths: workerPackagePaths(), memoryBytes };
	const worker = new Worker(workerProgramSource, {
		eval: true,
		workerData: start,
		// The interpreter's heap is WebAssembly memory, bounded by `memoryBytes`; this bounds the glue.
		resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 8 },
		stdout: true,
		stderr: true,
	});
	// What the interpreter's C side prints (an abort notice) is not the program's output.
	worker.stdout.resume();
	worker.stderr.resume();
	return worker;
}

/**
 * A worker for a program whose interpreter heap is bounded by `memoryBytes`: the spare when it
 * was made for the same bound and is still alive, else a new one.
 */
export function takeProgramWorker(memoryBytes: number): ProgramWorker {
	const taken = spare;
	spare = undefined;
	if (taken?.alive && taken.memoryBytes === memoryBytes) {
		// The program's worker keeps the process alive while it runs, as a new one would.
		taken.worker.ref();
		return { worker: taken.worker, warm: true };
	}
	if (taken) void taken.worker.terminate();
	return { worker: startWorker(memoryBytes), warm: false };
}

/**
 * Starts the spare for the next program (when there is none for this bound). It does not keep
 * the process alive: a one-shot `toolbelt tool code` exits without waiting for it.
 */
export function prepareSpareWorker(memoryBytes: number): void {
	if (spare?.alive && spare.memoryBytes === memoryBytes) return;
	if (spare) void spare.worker.terminate();
	const worker = startWorker(memoryBytes);
	worker.unref();
	const made: Spare = { memoryBytes, worker, alive: true };
	const lost = () => {
		made.alive = false;
		if (spare === made) spare = undefined;
	};
	worker.once("error", lost);
	worker.once("exit", lost);
	spare = made;
}
