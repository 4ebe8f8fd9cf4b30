import type { ChildProcessWithoutNullStreams } from "node:child_process";

/**
 * How a remote workspace reaches its machine: something that runs `sh -c SCRIPT sh ARGS…` there
 * with stdin, stdout and stderr connected (`ssh`, `docker exec -i`, `kubectl exec -i`). Only a
 * POSIX `sh` and the usual coreutils are assumed on the other side.
 */
export interface RemoteTransport {
	/** How messages name the remote side, e.g. `ssh://dev@box:22` or `docker://web`. */
	readonly label: string;
	/** Starts `sh -c script sh ...args` on the remote side (connecting first when needed). */
	spawn(script: string, args: readonly string[]): Promise<ChildProcessWithoutNullStreams>;
	/**
	 * Reads a finished process's exit code and stderr: an `Error` written for the model when the
	 * transport itself failed (host unreachable, login refused, container not running, `sh` missing),
	 * else undefined. A transport that keeps a connection forgets it here, so the next call reconnects.
	 */
	failure(exitCode: number | null, stderr: string): Error | undefined;
	/** Closes the connection (a multiplexing master, say). Safe to call more than once. */
	close(): Promise<void>;
}

/** An `Error` for a failure of the transport (not of the remote command), with `code: "EREMOTE"`. */
export class RemoteConnectionError extends Error {
	/** Always `EREMOTE`, so file tools do not mistake it for a missing file. */
	readonly code = "EREMOTE";
	override readonly name = "RemoteConnectionError";
}

/** Trims an stderr text to its last few meaningful lines, for a message. */
export function stderrSummary(stderr: string, maxLength = 600): string {
	const text = stderr.trim().split("\n").filter(Boolean).slice(-4).join(" / ");
	return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
