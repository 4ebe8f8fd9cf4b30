import { execFileSync } from "node:child_process";
import { requiredInCi } from "../../helpers/prerequisites.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sessionCounter = 0;

/** Options of `TmuxTerminal.start`. */
export interface TmuxTerminalOptions {
	/** The program and its arguments. */
	command: string[];
	/** Working directory of the program. */
	cwd: string;
	/** The program's entire environment (nothing else is inherited). */
	env: Record<string, string>;
	/** Terminal size. Default: 100 × 30. */
	columns?: number;
	rows?: number;
}

/**
 * A real terminal for a program: a detached tmux session on a private server socket (so no
 * user session is touched). When the program exits, the pane shows `[exit <code>]` and stays.
 */
export class TmuxTerminal {
	private readonly socket: string;
	private closed = false;

	private constructor(socket: string) {
		this.socket = socket;
	}

	/** True when tmux is installed; under CI, which installs it, a missing tmux is a failure (`requiredInCi`). */
	static available(): boolean {
		let reason: string | undefined;
		try {
			execFileSync("tmux", ["-V"], { stdio: "ignore" });
		} catch (error) {
			reason = `tmux -V failed: ${(error as Error).message}`;
		}
		return requiredInCi("tmux", reason) === undefined;
	}

	/** Starts `command` in a new terminal. */
	static start(options: TmuxTerminalOptions): TmuxTerminal {
		const socket = `toolbelt-test-${process.pid}-${++sessionCounter}`;
		const assignments = Object.entries({ TERM: "screen", ...options.env }).map(([name, value]) => `${name}=${value}`);
		// `env -i` gives the program exactly `env`; the shell wrapper reports the exit code in the pane.
		const script = 'env -i "$@"; echo "[exit $?]"; exec sleep 3600';
		execFileSync("tmux", [
			"-L",
			socket,
			"-f",
			"/dev/null",
			"new-session",
			"-d",
			"-s",
			"main",
			"-x",
			String(options.columns ?? 100),
			"-y",
			String(options.rows ?? 30),
			"-c",
			options.cwd,
			"sh",
			"-c",
			script,
			"sh",
			...assignments,
			...options.command,
		]);
		return new TmuxTerminal(socket);
	}

	private tmux(args: string[]): string {
		return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
	}

	/** Types `text` literally (no key names). */
	type(text: string): void {
		this.tmux(["send-keys", "-t", "main", "-l", text]);
	}

	/** Presses keys by tmux name: `Enter`, `C-c`, `C-d`, `Up`. */
	press(...keys: string[]): void {
		this.tmux(["send-keys", "-t", "main", ...keys]);
	}

	/**
	 * Pastes `text` as a terminal does: bracketed (`ESC[200~` … `ESC[201~`) when the program asked for
	 * it, line ends sent as CR.
	 */
	paste(text: string): void {
		this.tmux(["set-buffer", "-b", "test-paste", text]);
		this.tmux(["paste-buffer", "-p", "-d", "-b", "test-paste", "-t", "main"]);
	}

	/** The visible screen plus scrollback, as plain text, trailing blank lines dropped. */
	capture(): string {
		return this.tmux(["capture-pane", "-p", "-J", "-t", "main", "-S", "-200"]).replace(/\s+$/, "");
	}

	/** Waits until the screen matches `pattern`; throws with the screen when it does not in time. */
	async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const screen = this.capture();
			if (pattern.test(screen)) return screen;
			if (Date.now() > deadline) throw new Error(`Timed out waiting for ${pattern}. Screen:\n${screen}`);
			await sleep(50);
		}
	}

	/** Ends the tmux server and every process in it. Idempotent. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		try {
			this.tmux(["kill-server"]);
		} catch {
			// Already gone.
		}
	}
}
