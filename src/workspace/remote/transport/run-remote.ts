import { AbortError } from "../../../engine/index.js";
import { signalChild } from "../../local/index.js";
import type { RemoteTransport } from "./transport.js";

/** Options of `runRemote`. */
export interface RunRemoteOptions {
	/** Bytes for the remote stdin, which is then closed. Default: none (closed at once). */
	stdin?: Uint8Array;
	/** Kills the local client when aborted (the remote script ends with its channel). */
	signal?: AbortSignal;
}

/** What a remote script printed and how it ended. */
export interface RemoteRunResult {
	/** Exit code of the remote `sh`, or null when the client died by a signal. */
	exitCode: number | null;
	/** Everything on stdout. */
	stdout: Buffer;
	/** stderr as text. */
	stderr: string;
}

/**
 * Runs one remote script to its end and collects its output. A transport failure (see
 * `RemoteTransport.failure`) rejects; a failing script resolves with its exit code and stderr.
 */
export async function runRemote(
	transport: RemoteTransport,
	script: string,
	args: readonly string[],
	options: RunRemoteOptions = {},
): Promise<RemoteRunResult> {
	if (options.signal?.aborted) throw new AbortError();
	const child = await transport.spawn(script, args);
	const stdout: Buffer[] = [];
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		if (stderr.length < 64 * 1024) stderr += text;
	});
	// A client that died early makes writing fail with EPIPE; the exit code tells what happened.
	child.stdin.on("error", () => {});
	child.stdin.end(options.stdin ?? undefined);
	const kill = () => signalChild(child, "SIGKILL");
	options.signal?.addEventListener("abort", kill, { once: true });
	try {
		const exitCode = await new Promise<number | null>((resolve, reject) => {
			child.once("error", reject);
			child.once("close", (code) => resolve(code));
		});
		if (options.signal?.aborted) throw new AbortError();
		const failure = transport.failure(exitCode, stderr);
		if (failure) throw failure;
		return { exitCode, stdout: Buffer.concat(stdout), stderr };
	} finally {
		options.signal?.removeEventListener("abort", kill);
	}
}
