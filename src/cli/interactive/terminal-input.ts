import { EventEmitter } from "node:events";
import type { Readable } from "node:stream";
import type { ReadStream } from "node:tty";
import { type InputToken, InputTokenizer } from "./input-tokens.js";
import type { PastedBlocks } from "./pasted-blocks.js";
import { TypeAhead } from "./type-ahead.js";

/** What the session hears from the keyboard while no line is being edited (a turn runs). */
export interface TerminalInputHandlers {
	/** Ctrl-C. */
	interrupt(): void;
	/** Ctrl-D. */
	endOfInput(): void;
	/** Enter ended a line typed ahead: it is queued as the next prompt. */
	queued(text: string): void;
}

/**
 * The stream node:readline reads: a plain emitter that gets keys only while a line is being edited,
 * one line end at a time. Raw mode and flow are the `TerminalInput`'s, so readline's own calls do nothing.
 */
class LineEditorKeys extends EventEmitter {
	readonly isTTY = true;
	isRaw = true;
	setRawMode(): this {
		return this;
	}
	pause(): this {
		return this;
	}
	resume(): this {
		return this;
	}
}

/**
 * The terminal's keyboard for the whole session. It reads stdin in raw mode from start to stop, so
 * no key is lost between two prompts: while a line is edited (`attach`) keys go to the line editor,
 * a pasted block as one placeholder and Alt-Enter as a line end marked `newLineRequested`; the rest
 * of a chunk after a line end, and everything typed while a turn runs, is typed ahead (`typeAhead`).
 * While a question is asked (`suspend`) keys are the question's, and only Ctrl-C and Ctrl-D count.
 */
export class TerminalInput {
	/** The stream to give node:readline as its input. */
	readonly keys = new LineEditorKeys();
	/** Lines and text typed while no line was being edited. */
	readonly typeAhead = new TypeAhead();
	private readonly stdin: Readable & Partial<Pick<ReadStream, "setRawMode" | "isTTY">>;
	private readonly pasted: PastedBlocks;
	private readonly tokenizer = new InputTokenizer();
	private handlers: TerminalInputHandlers | undefined;
	private attached = false;
	private suspended = 0;
	private newLine = false;
	private readonly onData = (chunk: Buffer | string) => this.handle(chunk.toString());

	constructor(stdin: Readable, pasted: PastedBlocks) {
		this.stdin = stdin;
		this.pasted = pasted;
	}

	/** Starts reading the keyboard (raw mode, so Ctrl-C arrives as a key instead of a signal). */
	start(handlers: TerminalInputHandlers): void {
		this.handlers = handlers;
		if (this.stdin.isTTY === true) this.stdin.setRawMode?.(true);
		this.stdin.on("data", this.onData);
		this.stdin.resume();
	}

	/** Stops reading; the terminal is back in its normal mode. */
	stop(): void {
		this.stdin.off("data", this.onData);
		this.stdin.pause();
		if (this.stdin.isTTY === true) this.stdin.setRawMode?.(false);
	}

	/** Keys go to the line editor from now on. */
	attach(): void {
		this.attached = true;
	}

	/** Keys are typed ahead from now on (call it as the editor's line ends, before the chunk goes on). */
	detach(): void {
		this.attached = false;
	}

	/** Another reader (a one-key question) takes the keys until `unsuspend`; Ctrl-C and Ctrl-D still count. */
	suspend(): void {
		this.suspended++;
	}

	/** Ends one `suspend`. */
	unsuspend(): void {
		this.suspended = Math.max(0, this.suspended - 1);
	}

	/** True while the line end being handled came from the new-line key (Alt-Enter), not Enter. */
	get newLineRequested(): boolean {
		return this.newLine;
	}

	private handle(chunk: string): void {
		for (const token of this.tokenizer.push(chunk)) this.route(token);
	}

	private route(token: InputToken): void {
		if (this.suspended > 0) this.controlKeys(token);
		else if (this.attached) this.toEditor(token);
		else this.ahead(token);
	}

	private controlKeys(token: InputToken): void {
		if (token.type !== "text") return;
		if (token.text.includes("\x03")) this.handlers?.interrupt();
		else if (token.text.includes("\x04")) this.handlers?.endOfInput();
	}

	private toEditor(token: InputToken): void {
		if (token.type === "paste") this.keys.emit("data", this.pasted.placeholder(token.text));
		else if (token.type === "newLine") {
			this.newLine = true;
			try {
				this.keys.emit("data", "\r");
			} finally {
				this.newLine = false;
			}
		} else {
			// One line end at a time: the editor may stop at it, and what follows is then typed ahead.
			const end = token.text.search(/[\r\n]/);
			if (end === -1 || end === token.text.length - 1) this.keys.emit("data", token.text);
			else {
				this.keys.emit("data", token.text.slice(0, end + 1));
				this.route({ type: "text", text: token.text.slice(end + 1) });
			}
		}
	}

	private ahead(token: InputToken): void {
		const typed = this.typeAhead.add(token);
		if (typed.interrupt) this.handlers?.interrupt();
		if (typed.endOfInput) this.handlers?.endOfInput();
		for (const line of typed.queued) this.handlers?.queued(line);
	}
}
