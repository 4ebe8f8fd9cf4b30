import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { shellQuoteOneLine } from "./shell-quote.js";
import type { RemoteTransport } from "./transport.js";

/**
 * Before `execScript`: answers the checks a shell tool makes before it runs a command — `dir PATH`
 * (is it a folder?), `which NAME` (where is the program?) — one quoted line each, on stderr as
 * `TOOLBELT_ANSWER …`, until `run ARGS…` makes the rest of the session `execScript ARGS…` (its
 * stdin then holds only what the command gets). Without a run line the session just ends.
 */
const sessionPrelude = String.raw`
nl='
'
run=no
while IFS= read -r line; do
	eval "set -- $line"
	answer=
	case $1 in
	dir) [ -d "$2" ] && answer=yes;;
	which) case $2 in */*) [ -x "$2" ] && [ ! -d "$2" ] && answer=$2;; *) answer=$(command -v -- "$2");; esac;;
	run) shift; run=yes; break;;
	esac
	printf 'TOOLBELT_ANSWER %s\n' "$answer" >&2
done
[ "$run" = yes ] || exit 0
`;

/**
 * A remote session opened ahead of a command: the checks before it are answered inside it (no
 * round trip through another process), and the command then runs in it, so a bash call costs one
 * connection setup, as `ssh host command` does.
 */
export class ShellSession {
	private readonly answers: ((answer: string) => void)[] = [];
	private readonly failures: ((error: Error) => void)[] = [];
	private pending = "";
	/** Set once the command runs: nothing more may be written but its stdin. */
	private taken = false;
	private readonly onStderr = (text: string) => {
		this.pending += text;
		for (let newline = this.pending.indexOf("\n"); newline !== -1; newline = this.pending.indexOf("\n")) {
			const line = this.pending.slice(0, newline);
			this.pending = this.pending.slice(newline + 1);
			if (line.startsWith("TOOLBELT_ANSWER")) {
				this.failures.shift();
				this.answers.shift()?.(line.slice("TOOLBELT_ANSWER ".length));
			}
		}
	};

	private constructor(private readonly child: ChildProcessWithoutNullStreams) {
		child.stdin.on("error", () => {});
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", this.onStderr);
		child.once("close", (code) => {
			const error = new Error(`The remote shell session ended (exit ${code}).`);
			for (const fail of this.failures.splice(0)) fail(error);
			this.answers.length = 0;
		});
	}

	/** Opens a session that runs `execScript` once told to (see `sessionPrelude`). */
	static async open(transport: RemoteTransport, execScript: string): Promise<ShellSession> {
		return new ShellSession(await transport.spawn(`${sessionPrelude}${execScript}`, []));
	}

	/** True while the session can still take questions or a command. */
	get alive(): boolean {
		return (
			!this.taken && this.child.exitCode === null && this.child.signalCode === null && !this.child.stdin.writableEnded
		);
	}

	/** Asks `dir PATH` or `which NAME`; resolves with the answer line (empty for no). */
	ask(question: "dir" | "which", subject: string): Promise<string> {
		if (!this.alive) return Promise.reject(new Error("The remote shell session is in use or gone."));
		return new Promise<string>((resolve, reject) => {
			this.answers.push(resolve);
			this.failures.push(reject);
			this.child.stdin.write(`${[question, subject].map(shellQuoteOneLine).join(" ")}\n`);
		});
	}

	/** Makes the session run `execScript args…`; returns its process, stderr handed over to the caller. */
	run(args: readonly string[]): ChildProcessWithoutNullStreams {
		this.taken = true;
		this.child.stderr.removeListener("data", this.onStderr);
		this.child.stdin.write(`${["run", ...args].map(shellQuoteOneLine).join(" ")}\n`);
		return this.child;
	}

	/** Ends an unused session. */
	close(): void {
		this.child.stdin.end();
	}
}
