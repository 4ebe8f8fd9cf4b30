import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { AbortError } from "../../../engine/index.js";
import { ReplyReader } from "./reply-reader.js";
import { type RemoteRunResult, runRemote } from "./run-remote.js";
import { shellQuoteOneLine } from "./shell-quote.js";
import { RemoteConnectionError, type RemoteTransport } from "./transport.js";

/**
 * The remote end of a channel: one long-lived `sh` that has the library's functions defined and
 * reads one request per line, `req TAG SIZE SCRIPT ARGS…` (every word quoted, a newline written
 * `"$nl"`), then SIZE bytes of stdin for it. It runs the script in a subshell — no new shell to
 * start, no script to parse again — with its stdout going straight back, then answers
 * `\nTAG CODE ERRLEN\n` and the stderr bytes. The stdin bytes (followed by a line `.`, which shows
 * that all of them came) are always taken before the script runs, so they can never be read as a
 * request. It says READY at once: what the remote tools can do is probed when a call first needs
 * it (`exactStdinProbe`, the library's `seek_probe`), not on the way to the first answer.
 */
function loopScript(library: string): string {
	return String.raw`${library}
nl='
'
channel_dir=$(mktemp -d) || exit 1
trap 'rm -rf "$channel_dir"' EXIT
trap 'exit 1' HUP INT TERM PIPE
echo READY
req() {
	toolbelt_tag=$1; size=$2; script=$3; shift 3
	if [ "$size" -gt 0 ]; then
		# The bytes end with a line ".": only when all of them came can read find it.
		head -c "$size" > "$channel_dir/in"
		IFS= read -r end && [ "$end" = . ] || exit 1
		toolbelt_staged=yes
	else
		: > "$channel_dir/in"; toolbelt_staged=no
	fi
	( eval "$script" ) < "$channel_dir/in" 2> "$channel_dir/err"
	code=$?
	length=0; [ -s "$channel_dir/err" ] && length=$(($(wc -c < "$channel_dir/err")))
	printf '\n%s %s %s\n' "$toolbelt_tag" "$code" "$length"
	[ "$length" = 0 ] || cat "$channel_dir/err"
}
while IFS= read -r line; do eval "$line"; done
`;
}

/**
 * Does `head -c` take no more than it was asked for from a pipe (not so with busybox)? Asked by
 * the first request with stdin, which waits for the answer: where it is no, requests with stdin
 * run as their own process.
 */
const exactStdinProbe = String.raw`printf 'a\nb\n' | { head -c 2 > /dev/null; IFS= read -r probe; [ "$probe" = b ]; } && echo yes || echo no`;

/** Runs short scripts over one long-lived remote `sh`, in order, instead of one process each. */
export interface ScriptChannel {
	/**
	 * Runs `script` (which may call the library's functions) with `args` as `$1…` and `stdin`
	 * there; resolves with its exit code and output. Requests are sent at once (pipelined) and
	 * answered in order.
	 */
	run(
		script: string,
		args: readonly string[],
		options?: { stdin?: Uint8Array; signal?: AbortSignal },
	): Promise<RemoteRunResult>;
	/** Ends the remote loop. */
	close(): void;
}

interface Pending {
	reader: ReplyReader;
	resolve(result: RemoteRunResult): void;
	reject(error: Error): void;
}

interface Request {
	script: string;
	args: readonly string[];
	stdin: Uint8Array | undefined;
	resolve(result: RemoteRunResult): void;
	reject(error: Error): void;
}

/** One running loop: its process, the replies it owes in order, whether it takes stdin bytes. */
interface Loop {
	child: ChildProcessWithoutNullStreams;
	answering: Pending[];
	/** Whether the loop said READY. */
	ready: boolean;
	/** Undefined until `exactStdinProbe` answered; then whether its `head -c` reads exactly. */
	exactStdin: boolean | undefined;
	/** Whether `exactStdinProbe` was sent. */
	probing: boolean;
	/** Requests from the first one with stdin on, made before the probe answered. */
	waiting: Request[];
	/** Output before the READY line was complete. */
	greeting: Buffer;
	stderr: string;
}

function requestLine(tag: string, request: Request): string {
	const words = [request.script, ...request.args].map(shellQuoteOneLine);
	return `req ${tag} ${request.stdin?.length ?? 0} ${words.join(" ")}\n`;
}

/** Reads the loop's stdout: the READY line first, then the replies in request order. */
function onOutput(loop: Loop, chunk: Buffer): void {
	let data = chunk;
	if (!loop.ready) {
		data = loop.greeting.length === 0 ? chunk : Buffer.concat([loop.greeting, chunk]);
		const newline = data.indexOf(0x0a);
		if (newline === -1) {
			loop.greeting = data;
			return;
		}
		loop.ready = true;
		data = data.subarray(newline + 1);
	}
	while (data.length > 0) {
		const pending = loop.answering[0];
		if (!pending) return;
		const done = pending.reader.push(data);
		if (!done) return;
		loop.answering.shift();
		pending.resolve(done.result);
		data = done.rest;
	}
}

/** Writes a request (and its stdin bytes) to the loop; its reply is awaited in order. */
function send(running: Loop, request: Request): void {
	const tag = randomBytes(12).toString("hex");
	let line: string;
	try {
		line = requestLine(tag, request);
	} catch (error) {
		request.reject(error as Error);
		return;
	}
	running.answering.push({ reader: new ReplyReader(tag), resolve: request.resolve, reject: request.reject });
	running.child.stdin.write(line);
	if (request.stdin?.length) {
		running.child.stdin.write(request.stdin);
		running.child.stdin.write(".\n");
	}
}

/**
 * A channel over `transport` whose loop has `library` (shell functions) defined: the loop starts
 * on the first request and again after it died (a dropped connection rejects the requests in
 * flight with a `RemoteConnectionError`; a write in flight then never reaches its rename, see
 * `fileScript`). Requests with stdin on a loop without an exact `head -c` run as one process each.
 */
export function createScriptChannel(transport: RemoteTransport, library = ""): ScriptChannel {
	let loop: Loop | undefined;
	let starting: Promise<Loop> | undefined;

	const oneOff = (request: Request) => {
		runRemote(transport, `${library}\n${request.script}`, request.args, { stdin: request.stdin }).then(
			request.resolve,
			request.reject,
		);
	};
	const dispatch = (running: Loop, request: Request) => {
		// Whether the loop can take stdin bytes is known once the probe answered; requests before the
		// first one with stdin go at once, the rest wait behind it (in order).
		if (running.exactStdin === undefined && (request.stdin?.length || running.waiting.length > 0)) {
			running.waiting.push(request);
			if (!running.probing) probeStdin(running);
			return;
		}
		if (request.stdin?.length && !running.exactStdin) return oneOff(request);
		send(running, request);
	};
	const probeStdin = (running: Loop) => {
		running.probing = true;
		const answered = (exact: boolean) => {
			running.exactStdin = exact;
			for (const request of running.waiting.splice(0)) dispatch(running, request);
		};
		send(running, {
			script: exactStdinProbe,
			args: [],
			stdin: undefined,
			resolve: (result) => answered(result.exitCode === 0 && result.stdout.toString("latin1").trim() === "yes"),
			// The loop is gone: its close rejects the waiting requests.
			reject: () => {},
		});
	};
	const start = async (): Promise<Loop> => {
		const child = await transport.spawn(loopScript(library), []);
		const running: Loop = {
			child,
			answering: [],
			ready: false,
			exactStdin: undefined,
			probing: false,
			waiting: [],
			greeting: Buffer.alloc(0),
			stderr: "",
		};
		child.stdout.on("data", (chunk: Buffer) => onOutput(running, chunk));
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (text: string) => {
			if (running.stderr.length < 16 * 1024) running.stderr += text;
		});
		child.stdin.on("error", () => {});
		const fail = (error: Error) => {
			if (loop === running) loop = undefined;
			for (const pending of running.answering.splice(0)) pending.reject(error);
			for (const request of running.waiting.splice(0)) request.reject(error);
		};
		child.once("close", (code) => {
			fail(
				transport.failure(code, running.stderr) ??
					new RemoteConnectionError(
						`The connection to ${transport.label} ended during a call (exit ${code}); the next call connects again.`,
					),
			);
		});
		child.once("error", fail);
		loop = running;
		return running;
	};
	const connected = (): Promise<Loop> => {
		if (loop) return Promise.resolve(loop);
		starting ??= start().finally(() => {
			starting = undefined;
		});
		return starting;
	};
	return {
		run: (script, args, options = {}) => {
			if (options.signal?.aborted) return Promise.reject(new AbortError());
			return new Promise<RemoteRunResult>((resolve, reject) => {
				const request: Request = { script, args, stdin: options.stdin, resolve, reject };
				connected().then((running) => dispatch(running, request), reject);
			});
		},
		close: () => {
			loop?.child.stdin.end();
			loop = undefined;
		},
	};
}
