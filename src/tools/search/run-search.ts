import { basename, dirname } from "node:path";
import { AbortError, stoppableSignal, ToolError } from "../../engine/index.js";
import type { SearchBackendName, SearchOperations, SearchStream } from "../../workspace/index.js";
import { displayPath, resolveToolPath } from "../../workspace/index.js";
import { startDeadline } from "./deadline.js";

/** Default time a search may take before it returns what it found. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 60_000;

/** Where a search runs. */
export interface SearchTarget {
	/** Absolute folder the search runs in; output paths are relative to it. */
	root: string;
	/** The single file to search (a name in `root`), when the path named a file. */
	file?: string;
	/** The path as the model should read it in messages. */
	display: string;
}

/** Resolves the tool's `path` argument and checks that it exists. */
export async function resolveSearchTarget(options: {
	cwd: string;
	path: string | undefined;
	operations: SearchOperations;
	allowFile: boolean;
}): Promise<SearchTarget> {
	const absolute = resolveToolPath(options.cwd, options.path ?? ".");
	const display = displayPath(options.cwd, absolute);
	const info = await options.operations.stat(absolute);
	if (!info) {
		throw new ToolError(`Path not found: ${display}. Check the spelling, or search from a parent folder.`);
	}
	if (info.isDirectory) return { root: absolute, display };
	if (!options.allowFile) {
		throw new ToolError(`${display} is a file, not a folder. Pass the folder that holds it as path.`);
	}
	return { root: dirname(absolute), file: basename(absolute), display };
}

/** How a search run ended. */
export interface SearchRunResult {
	/** The backend that answered. */
	backend: SearchBackendName;
	/** Why the walker answered instead of ripgrep. */
	fallbackReason?: string;
	/** True when the timeout stopped the search; what was consumed so far is the result. */
	timedOut: boolean;
}

/**
 * Runs a search to its end, until `onBatch` returns false (the stream is then closed, which kills
 * ripgrep), or until the timeout (a partial result, not an error). The caller's abort throws.
 */
export async function runSearch<TItem>(options: {
	start: (signal: AbortSignal) => Promise<SearchStream<TItem>>;
	onBatch: (batch: readonly TItem[]) => boolean;
	signal: AbortSignal | undefined;
	timeoutMs: number;
}): Promise<SearchRunResult> {
	const deadline = startDeadline(options.signal, options.timeoutMs);
	// Aborted once the search is over, however it ended: whatever the backend started with it
	// (every ripgrep of a path-ordered search) is stopped then, also if closing the stream does not
	// reach it.
	const ended = stoppableSignal(deadline.signal);
	// Each wait rejects on abort or timeout, so a backend stuck in a system call (a FIFO, a slow
	// mount) cannot delay the answer; the stream is closed behind it. One listener serves every
	// wait (racing each step against one long-lived promise would pile up reactions on it).
	let rejectWait: ((error: Error) => void) | undefined;
	const onStop = () => rejectWait?.(new AbortError());
	deadline.signal.addEventListener("abort", onStop, { once: true });
	const untilStopped = <TValue>(promise: Promise<TValue>) =>
		new Promise<TValue>((resolve, reject) => {
			if (deadline.signal.aborted) reject(new AbortError());
			rejectWait = reject;
			promise.then(resolve, reject);
		});
	let stream: SearchStream<TItem> | undefined;
	let iterator: AsyncIterator<readonly TItem[]> | undefined;
	try {
		stream = await untilStopped(options.start(ended.signal));
		iterator = stream.items[Symbol.asyncIterator]();
		for (;;) {
			const next = await untilStopped(iterator.next());
			if (next.done || !options.onBatch(next.value)) break;
		}
		return { backend: stream.backend, fallbackReason: stream.fallbackReason, timedOut: false };
	} catch (error) {
		if (deadline.timedOut && !options.signal?.aborted) {
			return { backend: stream?.backend ?? "ripgrep", fallbackReason: stream?.fallbackReason, timedOut: true };
		}
		if (options.signal?.aborted) throw new AbortError("The search was aborted.");
		throw error;
	} finally {
		deadline.signal.removeEventListener("abort", onStop);
		deadline.dispose();
		// Ends the backend (kills ripgrep) when we stopped early; not awaited, as a stuck step would block it.
		iterator?.return?.().catch(() => {});
		ended.stop();
	}
}

/** `250 ms`, `1.5 s`, `60 s`: how notices state a timeout. */
export function formatDuration(milliseconds: number): string {
	if (milliseconds < 1000) return `${milliseconds} ms`;
	const seconds = milliseconds / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
