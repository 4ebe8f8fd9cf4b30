/** Turns bracketed paste on: the terminal then wraps pasted text in `ESC[200~` … `ESC[201~`. */
export const BRACKETED_PASTE_ON = "\x1b[?2004h";
/** Turns bracketed paste off again (at exit, so the shell gets plain pastes back). */
export const BRACKETED_PASTE_OFF = "\x1b[?2004l";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** Alt-Enter (ESC then CR or LF) and Shift-Enter as terminals with CSI-u key reports send it. */
const NEW_LINE_KEYS = /\x1b\r|\x1b\n|\x1b\[13;2u/;

/**
 * One piece of keyboard input: keys for the line editor (`text`, escape sequences included), a
 * whole pasted block (`paste`, line ends as `\n`), or the key for a new line inside the prompt.
 */
export type InputToken = { type: "text"; text: string } | { type: "paste"; text: string } | { type: "newLine" };

/**
 * The longest tail of `text`, at least `shortest` long, that is a proper prefix of `marker` (it may
 * continue in the next chunk).
 */
function partialMarkerAtEnd(text: string, marker: string, shortest = 1): number {
	for (let length = Math.min(marker.length - 1, text.length); length >= shortest; length--) {
		if (marker.startsWith(text.slice(text.length - length))) return length;
	}
	return 0;
}

/**
 * Splits raw terminal input into tokens. A paste may arrive in many chunks and its markers may be
 * cut between two: the tokenizer keeps what it cannot decide yet until the next chunk.
 */
export class InputTokenizer {
	private pending = "";
	private pasting = false;
	private pasted = "";

	/** Tokens completed by `chunk`, in order. */
	push(chunk: string): InputToken[] {
		const tokens: InputToken[] = [];
		let rest = this.pending + chunk;
		this.pending = "";
		while (rest !== "") {
			if (this.pasting) {
				const end = rest.indexOf(PASTE_END);
				if (end === -1) {
					const keep = partialMarkerAtEnd(rest, PASTE_END);
					this.pasted += rest.slice(0, rest.length - keep);
					this.pending = rest.slice(rest.length - keep);
					break;
				}
				this.pasted += rest.slice(0, end);
				tokens.push({ type: "paste", text: this.pasted.replace(/\r\n?/g, "\n") });
				this.pasting = false;
				this.pasted = "";
				rest = rest.slice(end + PASTE_END.length);
				continue;
			}
			const start = rest.indexOf(PASTE_START);
			const before = start === -1 ? rest : rest.slice(0, start);
			// A paste marker cut at the chunk's end waits for the rest of it; a chunk that is one ESC
			// alone is the Escape key, and a key never arrives cut, so no key typed is held back.
			const keep = start === -1 ? partialMarkerAtEnd(before, PASTE_START, before === "\x1b" ? 2 : 1) : 0;
			pushKeys(tokens, before.slice(0, before.length - keep));
			if (start === -1) {
				this.pending = before.slice(before.length - keep);
				break;
			}
			this.pasting = true;
			rest = rest.slice(start + PASTE_START.length);
		}
		return tokens;
	}
}

function pushKeys(tokens: InputToken[], text: string): void {
	let rest = text;
	for (let match = NEW_LINE_KEYS.exec(rest); match; match = NEW_LINE_KEYS.exec(rest)) {
		if (match.index > 0) tokens.push({ type: "text", text: rest.slice(0, match.index) });
		tokens.push({ type: "newLine" });
		rest = rest.slice(match.index + match[0].length);
	}
	if (rest !== "") tokens.push({ type: "text", text: rest });
}
