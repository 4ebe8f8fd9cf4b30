import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { signalChild } from "../../local/index.js";
import type { TailBudget } from "../../shell/output-tail.js";
import type { RemoteTransport } from "../transport/transport.js";
import { KeptOutputReader, keptOutputWatchScript, previewOf } from "./kept-output.js";

/** Seconds between progress frames, and the wait before the first watcher starts. */
const PROGRESS_SECONDS = 0.5;

/** What a progress watcher reads. */
export interface ProgressWatchOptions {
	/** The remote file the command's output goes to. */
	path: string;
	/** The command's remote pid: the watcher ends with it. */
	pid: number;
	/** Most tail bytes per frame. */
	keep: number;
	/** The model-facing budget the previews are rendered within. */
	budget: TailBudget;
	/** Receives each preview. */
	onPreview(text: string): void;
}

/**
 * Reads the progress of a kept output while its command runs, through a remote process of its own
 * (`keptOutputWatchScript`) started only once the command ran for the first interval: a short
 * command costs no ticker and no `sleep` on the remote side. `stop` ends it (the remote watcher
 * also ends with the command, or at its next write once its channel closed).
 */
export function watchProgress(transport: RemoteTransport, options: ProgressWatchOptions): { stop(): void } {
	let stopped = false;
	let child: ChildProcessWithoutNullStreams | undefined;
	const start = async () => {
		const every = String(PROGRESS_SECONDS);
		const started = await transport.spawn(keptOutputWatchScript, [
			options.path,
			String(options.pid),
			String(options.keep),
			every,
		]);
		if (stopped) return void signalChild(started);
		child = started;
		const reader = new KeptOutputReader((frame) => {
			if (!stopped) options.onPreview(previewOf(frame, options.budget));
		});
		started.stdout.on("data", (chunk: Buffer) => reader.write(chunk));
		started.stderr.resume();
		started.stdin.on("error", () => {});
		started.stdin.end();
		started.once("error", () => {});
	};
	const timer = setTimeout(() => void start().catch(() => {}), PROGRESS_SECONDS * 1000);
	return {
		stop: () => {
			stopped = true;
			clearTimeout(timer);
			if (child) signalChild(child);
		},
	};
}
