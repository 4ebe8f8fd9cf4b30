import type { Writable } from "node:stream";
import type { ToolResult } from "../../engine/index.js";
import { formatDuration, monotonicMs } from "../../engine/index.js";
import { contentToText } from "./content.js";
import { networkSummary } from "./network-line.js";
import { type ResultPreview, resultPreview } from "./result-preview.js";
import { styleDiffLine } from "./shown-lines.js";
import type { Style } from "./style.js";
import { failureLabel, fitWidth, summarizeToolArguments } from "./tool-line.js";

const spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Options of `ToolCallsView`. */
export interface ToolCallsViewOptions {
	/** Where the lines go. */
	stream: Writable;
	/**
	 * Redraw running calls in place with a spinner and elapsed time (a terminal). When false,
	 * each call prints one line when it ends (a pipe or log file).
	 */
	live: boolean;
	/** Colours (or none). */
	style: Style;
	/** Current terminal width in columns. Default: 80. */
	columns?: () => number;
	/** Spinner frame interval in ms. Default: 100. */
	tickMs?: number;
	/** Calls shorter than this, in ms, show no elapsed time while running: only long calls need a clock. Default: 1000. */
	showElapsedAfterMs?: number;
	/**
	 * Most lines redrawn in place. Moving the cursor above the top of the screen is impossible, so
	 * calls beyond this (a model that starts dozens at once) print one line when they end instead.
	 * Default: 10.
	 */
	maxLiveLines?: number;
	/**
	 * Under each finished call, a short preview of what it did: a command's last output lines, an
	 * edit's changed lines (`resultPreview`). Default: false (one line per call).
	 */
	previews?: boolean;
}

/** The defaults of the optional `ToolCallsViewOptions` fields (documented on each field). */
const viewDefaults = {
	columns: () => 80,
	tickMs: 100,
	showElapsedAfterMs: 1000,
	maxLiveLines: 10,
	previews: false,
} satisfies Required<Omit<ToolCallsViewOptions, "stream" | "live" | "style">>;

interface Entry {
	id: string;
	name: string;
	summary: string;
	/** The call's arguments, kept for the preview of a finished call (a new file's first lines). */
	args: unknown;
	startedAt: number;
	/** Last line of the latest partial output, shown dim while the call runs. */
	preview?: string;
	outcome?: { isError: boolean; label: string; durationMs: number };
	/** Where a sandboxed command connected (its result's `details.network`), drawn under the call once it ended. */
	network?: string;
	/** What the finished call did, drawn under it (with `previews`). */
	result?: ResultPreview;
	/** Not drawn live (the block was full); prints its line when it ends. */
	overflow?: boolean;
	/** A call made from inside another (a code-mode program): drawn indented under it. */
	child?: boolean;
}

/**
 * One line per tool call: `● bash npm test` with a live spinner and elapsed time while it runs,
 * then `✓ 2.3 s` or `✗ exit 1`. Calls of one batch form a block at the bottom of the output that
 * is redrawn in place until all of them have ended.
 */
export class ToolCallsView {
	private readonly options: Required<ToolCallsViewOptions>;
	private entries: Entry[] = [];
	private drawnLines = 0;
	private frame = 0;
	private timer: NodeJS.Timeout | undefined;
	/** A question is on screen below the block: draw nothing until `resume`. */
	private paused = false;

	constructor(options: ToolCallsViewOptions) {
		this.options = {
			...options,
			columns: options.columns ?? viewDefaults.columns,
			tickMs: options.tickMs ?? viewDefaults.tickMs,
			showElapsedAfterMs: options.showElapsedAfterMs ?? viewDefaults.showElapsedAfterMs,
			maxLiveLines: options.maxLiveLines ?? viewDefaults.maxLiveLines,
			previews: options.previews ?? viewDefaults.previews,
		};
	}

	/** A call started; `parentId` for a call made from inside another (a code-mode program's call). */
	start(id: string, name: string, args: unknown, parentId?: string): void {
		const entry: Entry = { id, name, summary: summarizeToolArguments(name, args), args, startedAt: monotonicMs() };
		if (parentId !== undefined) entry.child = true;
		this.retireFinished();
		entry.overflow = this.options.live && this.liveEntries().length >= this.options.maxLiveLines;
		this.entries.push(entry);
		if (!this.options.live || entry.overflow) return;
		this.redraw();
		this.startTimer();
	}

	private startTimer(): void {
		if (this.paused) return;
		this.timer ??= setInterval(() => {
			this.frame++;
			this.redraw();
		}, this.options.tickMs);
		this.timer.unref?.();
	}

	/**
	 * Erases the live block and stops drawing, so that a question (a permission prompt) can use
	 * the bottom of the screen. Calls that end meanwhile are drawn by `resume`.
	 */
	pause(): void {
		if (this.paused) return;
		this.paused = true;
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
		if (this.options.live && this.drawnLines > 0) this.options.stream.write(`\x1b[${this.drawnLines}F\x1b[0J`);
		this.drawnLines = 0;
	}

	/** Draws the block again below whatever was written while paused, and restarts the spinner. */
	resume(): void {
		if (!this.paused) return;
		this.paused = false;
		// Overflow calls that ended while paused still owe their one line.
		for (const entry of this.entries.filter((candidate) => candidate.overflow && candidate.outcome)) {
			this.options.stream.write(`${this.render(entry)}\n`);
		}
		this.entries = this.entries.filter((entry) => !(entry.overflow && entry.outcome));
		if (!this.options.live || this.liveEntries().length === 0) return;
		this.redraw();
		if (this.entries.every((candidate) => candidate.outcome)) this.commit();
		else this.startTimer();
	}

	/** A running call reported partial output. */
	update(id: string, partialResult: ToolResult): void {
		const entry = this.entries.find((candidate) => candidate.id === id);
		if (!entry || !this.options.live) return;
		const lines = contentToText(partialResult.content).trimEnd().split("\n");
		entry.preview = lines[lines.length - 1]?.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
	}

	/** A call ended. */
	end(id: string, options: { result: ToolResult; isError: boolean; durationMs: number }): void {
		const entry = this.entries.find((candidate) => candidate.id === id);
		if (!entry) return;
		entry.outcome = {
			isError: options.isError,
			label: options.isError ? failureLabel(options.result) : "",
			durationMs: options.durationMs,
		};
		const network = networkSummary(options.result.details);
		if (network !== undefined) entry.network = network;
		if (this.options.previews) {
			entry.result = resultPreview(entry.name, entry.args, options.result, options.isError);
			// The block is redrawn by moving the cursor up; it must stay well within a screen.
			if (this.options.live && !entry.overflow && this.liveRows() > 2 * this.options.maxLiveLines) delete entry.result;
		}
		if (this.paused && this.options.live) return;
		if (!this.options.live || entry.overflow) {
			// Keep the live block at the bottom: the plain line goes above it.
			// Each row it takes is cleared first: the block drawn there may be longer.
			const clear = this.drawnLines > 0 ? "\x1b[2K" : "";
			const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : "";
			const rows = this.render(entry).split("\n");
			this.options.stream.write(`${up}${rows.map((row) => `${clear}${row}\n`).join("")}`);
			this.entries = this.entries.filter((candidate) => candidate !== entry);
			if (this.drawnLines > 0) {
				this.drawnLines = 0;
				this.redraw();
			}
			return;
		}
		this.redraw();
		if (this.entries.every((candidate) => candidate.outcome)) this.commit();
	}

	/**
	 * Leaves the current block as it is on screen and stops redrawing it (before other output is
	 * written below it). Calls still running then print their line when they end.
	 */
	commit(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
		this.entries = this.entries.filter((entry) => !entry.outcome);
		this.drawnLines = 0;
	}

	/** Stops the spinner timer. */
	dispose(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
	}

	private liveRows(): number {
		return this.liveEntries().reduce((rows, entry) => rows + this.lineCount(entry), 0);
	}

	private liveEntries(): Entry[] {
		return this.entries.filter((entry) => !entry.overflow);
	}

	/** Finished calls at the top of the block are final on screen: stop redrawing them. */
	private retireFinished(): void {
		if (!this.options.live) return;
		while (this.entries[0]?.outcome && !this.entries[0].overflow && this.drawnLines > 0) {
			const retired = this.entries.shift();
			this.drawnLines = Math.max(0, this.drawnLines - (retired ? this.lineCount(retired) : 1));
		}
	}

	private redraw(): void {
		const live = this.liveEntries();
		const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : "";
		// A shorter block than last time leaves stale rows below; clear them.
		const lines = live.flatMap((entry) => this.render(entry).split("\n"));
		const stale = Math.max(0, this.drawnLines - lines.length);
		this.options.stream.write(up + lines.map((line) => `\x1b[2K${line}\n`).join("") + (stale > 0 ? "\x1b[0J" : ""));
		this.drawnLines = lines.length;
	}

	/** Rows an entry takes on screen: its line, then the network line and preview of an ended call. */
	private lineCount(entry: Entry): number {
		return this.render(entry).split("\n").length;
	}

	/** The preview rows of an ended call, each fitted to the width so a redraw keeps its row count. */
	private previewRows(entry: Entry, indent: string, width: number): string[] {
		const { style } = this.options;
		const preview = entry.result;
		if (!preview) return [];
		const fitRow = (text: string) => fitWidth(text, width - indent.length);
		const rows = preview.lines.map((line) =>
			preview.kind === "output" ? style.dim(fitRow(line.text)) : styleDiffLine(line, style, fitRow),
		);
		if (preview.more > 0 && preview.kind === "diff")
			rows.push(style.dim(`… ${preview.more} more line${preview.more === 1 ? "" : "s"}`));
		return rows.map((row) => `${indent}${row}`);
	}

	private render(entry: Entry): string {
		const { style } = this.options;
		const width = Math.max(20, this.options.columns() - 1);
		let status: string;
		let styledStatus: string;
		if (entry.outcome?.isError) {
			status = `✗ ${fitWidth(entry.outcome.label, 60)} · ${formatDuration(entry.outcome.durationMs)}`;
			styledStatus = style.red(status);
		} else if (entry.outcome) {
			status = `✓ ${formatDuration(entry.outcome.durationMs)}`;
			styledStatus = style.green(status);
		} else {
			const elapsed = monotonicMs() - entry.startedAt;
			const spinner = spinnerFrames[this.frame % spinnerFrames.length]!;
			status = elapsed >= this.options.showElapsedAfterMs ? `${spinner} ${formatDuration(elapsed)}` : spinner;
			styledStatus = style.yellow(status);
		}
		const marker = entry.child ? "  └" : "●";
		const headWidth = Math.max(8, width - Array.from(status).length - marker.length - 1);
		const head = fitWidth(`${entry.name}${entry.summary ? ` ${entry.summary}` : ""}`, headWidth - 2);
		const name = head.slice(0, entry.name.length);
		let line = `${style.cyan(marker)} ${style.bold(name)}${head.slice(entry.name.length)}  ${styledStatus}`;
		const used = marker.length + 1 + Array.from(head).length + 2 + Array.from(status).length;
		if (!entry.outcome && entry.preview && width - used > 10) {
			line += style.dim(`  ${fitWidth(entry.preview, width - used - 2)}`);
		}
		const indent = entry.child ? "     " : "  ";
		if (entry.outcome && entry.network !== undefined) {
			line += `\n${indent}${style.dim(fitWidth(entry.network, width - indent.length))}`;
		}
		if (entry.outcome) for (const row of this.previewRows(entry, `${indent}  `, width)) line += `\n${row}`;
		return line;
	}
}
