import type { InputToken } from "./input-tokens.js";

/** Escape sequences (arrow and function keys, terminal reports): no text to keep. */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?/y;

/** What one token of type-ahead did. */
export interface TypedAhead {
	/** Lines ended with Enter: each is a prompt to send. */
	queued: string[];
	/** Ctrl-C was pressed. */
	interrupt: boolean;
	/** Ctrl-D was pressed. */
	endOfInput: boolean;
}

/**
 * Keys typed while no line is being edited, kept as a line the way a terminal's cooked mode
 * keeps it: Backspace takes back a character, Ctrl-U the line, Enter queues it; a paste and the
 * new-line key add lines to it. The line not yet ended is handed to the next prompt's editor.
 */
export class TypeAhead {
	private line = "";

	/** Adds one token. */
	add(token: InputToken): TypedAhead {
		const typed: TypedAhead = { queued: [], interrupt: false, endOfInput: false };
		if (token.type === "paste") this.line += token.text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
		else if (token.type === "newLine") this.line += "\n";
		else this.keys(token.text, typed);
		return typed;
	}

	/** The line typed so far and not ended, removed from the type-ahead. */
	takeUnfinished(): string {
		const line = this.line;
		this.line = "";
		return line;
	}

	private keys(text: string, typed: TypedAhead): void {
		for (let index = 0; index < text.length; ) {
			ESCAPE_SEQUENCE.lastIndex = index;
			const sequence = ESCAPE_SEQUENCE.exec(text);
			if (sequence) {
				index += sequence[0].length;
				continue;
			}
			const key = String.fromCodePoint(text.codePointAt(index) ?? 0);
			index += key.length;
			if (key === "\r" || key === "\n") {
				if (this.line.trim() !== "") typed.queued.push(this.line);
				this.line = "";
			} else if (key === "\x7f" || key === "\b") this.line = Array.from(this.line).slice(0, -1).join("");
			else if (key === "\x15") this.line = "";
			else if (key === "\x03") typed.interrupt = true;
			else if (key === "\x04") typed.endOfInput = true;
			else if (key === "\t" || key >= " ") this.line += key;
		}
	}
}
