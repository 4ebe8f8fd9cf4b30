import type { Writable } from "node:stream";
import { formatDuration, monotonicMs } from "../../engine/index.js";
import type { Style } from "./style.js";

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * A transient `⠋ waiting for the model · 3.2 s` line while a request has produced nothing
 * visible yet (a slow local model can take many seconds). Erased, not left behind, when output
 * arrives. Only for terminals; the cursor must be at the start of a line when it starts.
 */
export class WaitingLine {
	private readonly stream: Writable;
	private readonly style: Style;
	private timer: NodeJS.Timeout | undefined;
	private startedAt = 0;
	private frame = 0;

	constructor(options: { stream: Writable; style: Style }) {
		this.stream = options.stream;
		this.style = options.style;
	}

	/** Shows the line (no-op if it is already shown). */
	start(label: string): void {
		if (this.timer) return;
		this.startedAt = monotonicMs();
		this.frame = 0;
		const draw = () => {
			const elapsed = monotonicMs() - this.startedAt;
			const clock = elapsed >= 1000 ? ` · ${formatDuration(elapsed)}` : "";
			const spinner = frames[this.frame++ % frames.length];
			this.stream.write(`\r\x1b[2K${this.style.dim(`${spinner} ${label}${clock}`)}`);
		};
		draw();
		this.timer = setInterval(draw, 100);
		this.timer.unref?.();
	}

	/** Erases the line, leaving the cursor at the start of the now empty line. */
	stop(): void {
		if (!this.timer) return;
		clearInterval(this.timer);
		this.timer = undefined;
		this.stream.write("\r\x1b[2K");
	}
}
