const PLACEHOLDER = /\[paste #(\d+), \d+ lines\]/g;

/** Control characters a paste may carry that must not act as keys (all of C0 but tab and line ends, and DEL). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * The multi-line blocks pasted in a session. The line editor holds one line, so a pasted block
 * stands in it as a short placeholder (`[paste #1, 20 lines]`) and is put back, every line of it,
 * when the prompt is sent. Blocks are kept for the session, so a prompt recalled from the history
 * still carries its block.
 */
export class PastedBlocks {
	private readonly blocks = new Map<string, string>();

	/** What goes into the line for pasted `text`: the text itself when it is one line, else a placeholder. */
	placeholder(text: string): string {
		const clean = text.replace(CONTROL, "");
		if (!clean.includes("\n")) return clean;
		const id = String(this.blocks.size + 1);
		this.blocks.set(id, clean);
		return `[paste #${id}, ${clean.replace(/\n$/, "").split("\n").length} lines]`;
	}

	/** `line` with each placeholder replaced by its block. */
	expand(line: string): string {
		return line.replace(PLACEHOLDER, (whole, id: string) => this.blocks.get(id) ?? whole);
	}
}
