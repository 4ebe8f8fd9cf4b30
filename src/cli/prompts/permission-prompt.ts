import type { PermissionAnswer, PermissionRequest } from "../../safety/index.js";
import type { CliIO } from "../io.js";
import type { Style } from "../render/style.js";
import { approvalDetail } from "./approval-detail.js";
import { keyAnswer } from "./key-answer.js";
import { replacedText } from "./replaced-file.js";

/** Live output that must step aside while a question is on screen. */
export interface PausableView {
	/** Clears spinners and live lines. */
	pause(): void;
	/** Draws them again. */
	resume(): void;
}

/** Options of `TerminalPermissionPrompt`. */
export interface TerminalPermissionPromptOptions {
	/** The terminal: questions go to stdout, keys are read from stdin (in raw mode during a turn). */
	io: CliIO;
	/** Colours. */
	style: Style;
}

const answerLabels: Record<PermissionAnswer, string> = { yes: "yes", no: "no", always: "always" };

function clean(text: string): string {
	// Arguments come from a model: no control characters may reach the terminal.
	return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "").replace(/\s*\n\s*/g, " ⏎ ");
}

/**
 * Asks the person at the terminal about a tool call: y (yes), n (no) or a (always: also adds
 * the rules shown to the project settings). One key press, no Enter. Esc, Ctrl-C and Ctrl-D
 * answer no (the session cancels the turn on Ctrl-C itself); so does an aborted turn. The
 * interactive session keeps stdin in raw mode and flowing while a turn runs, which this relies on.
 */
export class TerminalPermissionPrompt {
	private readonly options: TerminalPermissionPromptOptions;
	/** The live output of the running turn, paused while asking. Set by the session per turn. */
	view: PausableView | undefined;

	constructor(options: TerminalPermissionPromptOptions) {
		this.options = options;
	}

	/** The `ask` callback for the safety layer. */
	readonly ask = async (request: PermissionRequest, signal: AbortSignal | undefined): Promise<PermissionAnswer> => {
		if (signal?.aborted) return "no";
		const { io, style } = this.options;
		// Read before the live view pauses: the question then appears whole at once.
		const replaced = request.toolName === "write" ? await replacedText(request.target) : undefined;
		if (signal?.aborted) return "no";
		this.view?.pause();
		const always =
			request.rulesIfAlways.length > 0
				? `${style.bold("a")}lways (adds ${request.rulesIfAlways.map(clean).join(", ")} to .toolbelt/settings.json)`
				: `${style.bold("a")}lways (for this session)`;
		io.stdout.write(
			`${style.yellow("?")} ${style.bold(clean(request.summary))}\n` +
				approvalDetail(request, style, replaced) +
				`  ${style.dim(clean(request.reason))}\n` +
				`  Allow? ${style.bold("y")}es · ${style.bold("n")}o · ${always} `,
		);
		const answer = await this.readAnswer(signal);
		io.stdout.write(`${answer === "no" ? style.red(answerLabels[answer]) : style.green(answerLabels[answer])}\n`);
		this.view?.resume();
		return answer;
	};

	private readAnswer(signal: AbortSignal | undefined): Promise<PermissionAnswer> {
		const input = this.options.io.stdin;
		return new Promise((resolve) => {
			const finish = (answer: PermissionAnswer) => {
				input.off("data", onData);
				signal?.removeEventListener("abort", onAbort);
				resolve(answer);
			};
			const onAbort = () => finish("no");
			const onData = (chunk: Buffer | string) => {
				const answer = keyAnswer<PermissionAnswer>(chunk, { y: "yes", a: "always" }, "no");
				if (answer) finish(answer);
			};
			input.on("data", onData);
			input.resume();
			signal?.addEventListener("abort", onAbort, { once: true });
		});
	}
}
