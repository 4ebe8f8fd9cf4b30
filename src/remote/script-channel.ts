import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { AbortError } from "../engine/errors.js";
import { type RemoteRunResult, runRemote } from "./run-remote.js";
import { RemoteConnectionError, type RemoteTransport } from "./transport.js";

/**
 * The remote end of a channel: reads requests from stdin — a count line, then each argument as a
 * length line and that many bytes (the first argument is the script), then the stdin payload the
 * same way — runs `sh -c SCRIPT sh ARGS…` on it, and answers `CODE OUTLEN ERRLEN\n` then the
 * bytes of stdout and stderr. GNU `head -c` reads exactly the bytes asked for, and `read` never
 * reads past its line, so requests stay framed; elsewhere the loop says UNSUPPORTED and every
 * request runs as its own remote process.
 */
const loopScript = String.raw`
# busybox head -c may read past what it was asked for on a pipe: then no channel (one process per call).
head --version 2>/dev/null | grep -q coreutils || { echo UNSUPPORTED; exit 0; }
echo READY
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
trap 'exit 1' HUP INT TERM PIPE
take() { v=$(head -c "$1"; printf x); v=%{v%x}; }
while IFS= read -r count; do
	set --
	i=0
	while [ "$i" -lt "$count" ]; do
		IFS= read -r length || exit 0
		take "$length"
		set -- "$@" "$v"
		i=$((i + 1))
	done
	IFS= read -r length || exit 0
	head -c "$length" > "$d/in"
	script=$1; shift
	sh -c "$script" sh "$@" < "$d/in" > "$d/out" 2> "$d/err"
	code=$?
	printf '%s %s %s\n' "$code" "$(wc -c < "$d/out" | tr -d ' ')" "$(wc -c < "$d/err" | tr -d ' ')"
	cat "$d/out" "$d/err"
done
`.replaceAll("%{", "${");

interface Pending {
	request: Buffer[];
	script: string;
	args: readonly string[];
	stdin: Uint8Array | undefined;
	sent?: boolean;
	resolve(result: RemoteRunResult): void;
	reject(error: Error): void;
}

/** Runs short scripts over one long-lived remote `sh`, one at a time, instead of one process each. */
export interface ScriptChannel {
	/** Runs `sh -c script sh ...args` with `stdin` there; resolves with its exit code and output. */
	run(
		script: string,
		args: readonly string[],
		options?: { stdin?: Uint8Array; signal?: AbortSignal },
	): Promise<RemoteRunResult>;
	/** Ends the remote loop. */
	close(): void;
}

function frame(parts: readonly (string | Uint8Array)[], stdin: Uint8Array | undefined): Buffer[] {
	const chunks: Buffer[] = [Buffer.from(`${parts.length}\n`)];
	for (const part of [...parts, stdin ?? Buffer.alloc(0)]) {
		const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part);
		chunks.push(Buffer.from(`${bytes.length}\n`), bytes);
	}
	return chunks;
}

/**
 * A channel over `transport`: the loop starts on the first request and again after it died (a
 * dropped connection rejects the request in flight with a `RemoteConnectionError`; a write in
 * flight then never reaches its rename, see `fileScript`).
 */
export function createScriptChannel(transport: RemoteTransport): ScriptChannel {
	let child: ChildProcessWithoutNullStreams | undefined;
	let buffered: Buffer = Buffer.alloc(0);
	let stderr = "";
	const queue: Pending[] = [];
	let current: Pending | undefined;
	/** Undefined until the loop said READY or UNSUPPORTED. */
	let supported: boolean | undefined;

	const fail = (error: Error) => {
		const waiting = current ? [current, ...queue.splice(0)] : queue.splice(0);
		current = undefined;
		for (const pending of waiting) pending.reject(error);
	};
	const parse = () => {
		if (supported === undefined) {
			const newline = buffered.indexOf(0x0a);
			if (newline === -1) return;
			supported = buffered.subarray(0, newline).toString() === "READY";
			buffered = buffered.subarray(newline + 1);
			if (!supported) {
				const waiting = current ? [current, ...queue.splice(0)] : queue.splice(0);
				current = undefined;
				for (const pending of waiting) fallback(pending);
				return;
			}
			if (current) send(current);
		}
		while (current) {
			const newline = buffered.indexOf(0x0a);
			if (newline === -1) return;
			const [code, outLength, errLength] = buffered.subarray(0, newline).toString().split(" ").map(Number);
			const total = newline + 1 + (outLength ?? 0) + (errLength ?? 0);
			if (buffered.length < total) return;
			const stdout = Buffer.from(buffered.subarray(newline + 1, newline + 1 + (outLength ?? 0)));
			const errText = buffered.subarray(newline + 1 + (outLength ?? 0), total).toString("utf8");
			buffered = buffered.subarray(total);
			const done = current;
			current = undefined;
			done.resolve({ exitCode: code ?? null, stdout, stderr: errText });
			next();
		}
	};
	const start = async (): Promise<ChildProcessWithoutNullStreams> => {
		const started = await transport.spawn(loopScript, []);
		buffered = Buffer.alloc(0);
		supported = undefined;
		child = started;
		stderr = "";
		started.stdout.on("data", (chunk: Buffer) => {
			buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
			parse();
		});
		started.stderr.setEncoding("utf8");
		started.stderr.on("data", (text: string) => {
			if (stderr.length < 16 * 1024) stderr += text;
		});
		started.stdin.on("error", () => {});
		started.once("close", (code) => {
			if (child === started) child = undefined;
			const failure =
				transport.failure(code, stderr) ??
				new RemoteConnectionError(
					`The connection to ${transport.label} ended during a call (exit ${code}); the next call connects again.`,
				);
			fail(failure);
		});
		started.once("error", (error) => fail(error));
		return started;
	};
	let starting: Promise<ChildProcessWithoutNullStreams> | undefined;
	const send = (pending: Pending) => {
		if (pending.sent || !child) return;
		pending.sent = true;
		for (const chunk of pending.request) child.stdin.write(chunk);
	};
	const fallback = (pending: Pending) => {
		runRemote(transport, pending.script, pending.args, { stdin: pending.stdin }).then(pending.resolve, pending.reject);
	};
	const next = () => {
		if (supported === false) {
			for (const pending of queue.splice(0)) fallback(pending);
			return;
		}
		if (current || queue.length === 0) return;
		current = queue.shift() as Pending;
		const sending = current;
		starting ??= child ? Promise.resolve(child) : start();
		starting
			.then((running) => {
				child = running;
				starting = undefined;
				// Before READY the request waits: parse() sends it (or falls back) once the loop answered.
				if (supported) send(sending);
			})
			.catch((error: Error) => {
				starting = undefined;
				fail(error);
			});
	};
	return {
		run: (script, args, options = {}) => {
			if (options.signal?.aborted) return Promise.reject(new AbortError());
			return new Promise<RemoteRunResult>((resolve, reject) => {
				queue.push({
					request: frame([script, ...args], options.stdin),
					script,
					args,
					stdin: options.stdin,
					resolve,
					reject,
				});
				next();
			});
		},
		close: () => {
			child?.stdin.end();
			child = undefined;
		},
	};
}
