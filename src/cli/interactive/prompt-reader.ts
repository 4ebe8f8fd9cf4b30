import { createInterface } from "node:readline";
import type { CliIO } from "../io.js";
import type { Style } from "../render/style.js";
import type { PastedBlocks } from "./pasted-blocks.js";
import type { TerminalInput } from "./terminal-input.js";

/** Options of `PromptReader`. */
export interface PromptReaderOptions {
	io: CliIO;
	style: Style;
	input: TerminalInput;
	pasted: PastedBlocks;
}

/**
 * Reads one prompt with node:readline's editing and history. A prompt may span lines: Alt-Enter,
 * or a `\` at the end of a line, goes on to a new line (shown with a continuation mark); a pasted
 * block stands in the line as a placeholder and comes back whole in the prompt read.
 */
export class PromptReader {
	private readonly options: PromptReaderOptions;
	private readonly history: string[] = [];

	constructor(options: PromptReaderOptions) {
		this.options = options;
	}

	/** Adds a prompt that did not come through the editor (sent from the type-ahead) to the history. */
	remember(line: string): void {
		if (line.trim() !== "" && this.history[0] !== line) this.history.unshift(line);
	}

	/**
	 * Reads one prompt, starting from `typed` (what was typed ahead); undefined on Ctrl-D at an
	 * empty line or the end of input. `status` goes before the prompt mark.
	 */
	read(typed: string, status: string): Promise<string | undefined> {
		const { io, style, input, pasted } = this.options;
		const mark = `${status}${style.cyan("›")} `;
		return new Promise((resolve) => {
			const readline = createInterface({
				input: input.keys as unknown as NodeJS.ReadableStream,
				output: io.stdout,
				terminal: true,
				// A copy: readline adds to the array it is given, and this one outlives the interface.
				history: [...this.history],
				historySize: 1000,
				removeHistoryDuplicates: true,
				prompt: mark,
			});
			const lines: string[] = [];
			let answer: string | undefined;
			readline.on("line", (line) => {
				this.remember(line);
				const newLine = input.newLineRequested;
				if (newLine || line.endsWith("\\")) {
					lines.push(newLine ? line : line.slice(0, -1));
					readline.setPrompt(`${style.dim("…")} `);
					readline.prompt();
					return;
				}
				lines.push(line);
				answer = pasted.expand(lines.join("\n"));
				// Before the chunk this line end came in goes on: the rest of it is typed ahead.
				input.detach();
				readline.close();
			});
			readline.on("SIGINT", () => {
				if (readline.line !== "") {
					readline.write(null, { ctrl: true, name: "e" });
					readline.write(null, { ctrl: true, name: "u" });
					return;
				}
				if (lines.length > 0) {
					// Ctrl-C on an empty continuation line drops the lines begun.
					lines.length = 0;
					readline.setPrompt(mark);
					io.stdout.write("\n");
				} else io.stdout.write(`\n${style.dim("(Ctrl-D or /exit to leave)")}\n`);
				readline.prompt();
			});
			readline.on("close", () => {
				input.detach();
				resolve(answer);
			});
			input.attach();
			readline.prompt();
			if (typed !== "") readline.write(pasted.placeholder(typed));
		});
	}
}
