import { closeSync, fstatSync, ftruncateSync } from "node:fs";
import { processGroupOf } from "../../workspace/local/index.js";

/** How often a sunk output file is checked, in ms. */
const checkIntervalMs = 1000;
/** Past this size a sunk output file is emptied, in bytes. */
const maxSunkBytes = 1024 * 1024;

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		// ESRCH: gone. EPERM: it exists but belongs to someone else (the pid was reused); not ours to wait for.
		return false;
	}
	// A zombie answers signal 0 too, and may never be reaped (toolbelt as PID 1 of a container).
	return process.platform !== "linux" || processGroupOf(pid) !== undefined;
}

/**
 * Takes over an output file that background processes still append to, after the command's call
 * has ended and nobody reads the file any more (it may already be deleted). Every second, a file
 * grown past 1 MB is emptied: the writers append (`O_APPEND`), so they go on writing from the
 * start and never block or die of a broken pipe, while the disk use stays bounded. When the
 * processes are gone, the descriptor is closed. The timer never keeps toolbelt alive.
 */
export function sinkOutputFile(descriptor: number, writerPids: readonly number[]): void {
	const timer = setInterval(() => {
		try {
			if (!writerPids.some(isAlive)) {
				clearInterval(timer);
				closeSync(descriptor);
				return;
			}
			if (fstatSync(descriptor).size > maxSunkBytes) ftruncateSync(descriptor, 0);
		} catch {
			clearInterval(timer);
			try {
				closeSync(descriptor);
			} catch {
				// Already closed.
			}
		}
	}, checkIntervalMs);
	timer.unref();
}
