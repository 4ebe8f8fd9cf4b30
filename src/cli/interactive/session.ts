import { monotonicMs } from "../../engine/index.js";
import { type CliIO, ExitCode } from "../io.js";
import type { PausableView, TerminalPermissionPrompt } from "../prompts/permission-prompt.js";
import { EventRenderer } from "../render/event-renderer.js";
import type { Style } from "../render/style.js";
import { formatTurnSummary } from "../render/turn-summary.js";
import type { AgentSetup } from "../setup/agent-setup.js";
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from "./input-tokens.js";
import { handleJobsCommand, jobsHelp, jobsStatus } from "./jobs-commands.js";
import { PastedBlocks } from "./pasted-blocks.js";
import { PromptReader } from "./prompt-reader.js";
import { handleResumeCommand, resumeHelp } from "./resume-command.js";
import { TerminalInput } from "./terminal-input.js";

const sessionHelp = `Type a request and press Enter; Alt-Enter (or \\ at the end of a line) starts a new line, and a
pasted block is sent whole. Text typed while the agent works is queued as the next prompt; Ctrl-C cancels the turn.
  /new    start a new conversation (forget the transcript)
  /model [NAME]  show the model, or switch to NAME from the next prompt (toolbelt config sets the default)
${jobsHelp}
${resumeHelp}
  /undo   take back the file changes of the last prompt (not those made by bash)
  /checkpoints  list the prompts /undo can take back
  /exit   leave (or Ctrl-D)
  /help   this text`;

/** Options of `InteractiveSession`. */
export interface InteractiveSessionOptions {
	/** The configured agent. */
	setup: AgentSetup;
	/** The terminal. */
	io: CliIO;
	/** Colours. */
	style: Style;
	/** Header line shown once at start. */
	banner: string;
	/** The permission prompt the agent's safety layer asks through; it pauses each turn's live output. Default: none. */
	prompt?: TerminalPermissionPrompt;
}

/**
 * The interactive loop: read a line with history and editing, run it as a turn while rendering
 * events, repeat. Ctrl-C cancels the running turn (at the prompt it clears the line); Ctrl-D exits.
 */
export class InteractiveSession {
	private readonly options: InteractiveSessionOptions;
	private readonly input: TerminalInput;
	private readonly reader: PromptReader;
	/** Prompts typed ahead and ended with Enter during a turn, sent in order after it. */
	private readonly queued: string[] = [];
	/** The running turn: how to cancel it and the live view a note must pause. */
	private turn: { cancel(): void; view: PausableView } | undefined;
	private exitAfterTurn = false;

	constructor(options: InteractiveSessionOptions) {
		this.options = options;
		const pasted = new PastedBlocks();
		this.input = new TerminalInput(options.io.stdin, pasted);
		this.reader = new PromptReader({ io: options.io, style: options.style, input: this.input, pasted });
	}

	/** Runs until Ctrl-D, `/exit` or the end of input. Resolves to the exit code. */
	async run(): Promise<number> {
		const { io, style } = this.options;
		io.stdout.write(`${this.options.banner}\n${style.dim("Ctrl-C cancels a turn · Ctrl-D exits · /help")}\n\n`);
		// Pastes arrive marked, so a pasted block is one prompt and not one prompt per line.
		io.stdout.write(BRACKETED_PASTE_ON);
		this.input.start({
			interrupt: () => this.turn?.cancel(),
			endOfInput: () => {
				this.exitAfterTurn = true;
				this.turn?.cancel();
			},
			queued: (text) => this.queue(text),
		});
		try {
			await this.loop();
		} finally {
			this.input.stop();
			io.stdout.write(BRACKETED_PASTE_OFF);
		}
		io.stdout.write("\n");
		return ExitCode.ok;
	}

	private async loop(): Promise<void> {
		const { io, style } = this.options;
		let typed = "";
		while (!this.exitAfterTurn) {
			const line = await this.nextPrompt(typed);
			typed = "";
			if (line === undefined) break;
			const text = line.trim();
			if (text === "") continue;
			if (text === "/exit" || text === "/quit") break;
			if (text === "/help") {
				io.stdout.write(`${sessionHelp}\n\n`);
				continue;
			}
			if (await handleJobsCommand(text, this.options.setup.jobs, io, style)) continue;
			if (await handleResumeCommand(text, this.options.setup, io, style)) continue;
			if (text === "/undo" || text === "/checkpoints") {
				await this.checkpointCommand(text);
				continue;
			}
			if (text === "/model" || text.startsWith("/model ")) {
				this.modelCommand(text.slice("/model".length).trim());
				continue;
			}
			if (text === "/new" || text === "/clear") {
				this.options.setup.agent.reset();
				io.stdout.write(`${style.dim("New conversation.")}\n\n`);
				continue;
			}
			// A single line is sent trimmed; a block keeps its first line's indentation.
			const cancelled = await this.runTurn(line.includes("\n") ? line.replace(/^(\s*\n)+/, "").trimEnd() : text);
			if (this.exitAfterTurn) break;
			// What was queued behind a cancelled turn is not sent: it comes back to the line, to send or edit.
			if (cancelled)
				typed = [...this.queued.splice(0), this.input.typeAhead.takeUnfinished()].filter(Boolean).join("\n");
		}
	}

	/** The next prompt: the first one queued during the last turn, else one read from the editor. */
	private nextPrompt(typed: string): Promise<string | undefined> {
		const { io, style } = this.options;
		const queued = this.queued.shift();
		if (queued === undefined) {
			const unfinished = this.input.typeAhead.takeUnfinished();
			return this.reader.read(
				typed === "" ? unfinished : `${typed}\n${unfinished}`.replace(/\n$/, ""),
				jobsStatus(this.options.setup.jobs, style),
			);
		}
		this.reader.remember(queued);
		io.stdout.write(`${style.cyan("›")} ${oneLine(queued)}  ${style.dim("(queued)")}\n`);
		return Promise.resolve(queued);
	}

	/** A line typed ahead and ended with Enter while a turn runs: sent as the next prompt. */
	private queue(text: string): void {
		const { io, style } = this.options;
		this.queued.push(text);
		const view = this.turn?.view;
		view?.pause();
		io.stdout.write(`${style.dim(`queued › ${oneLine(text)}`)}\n`);
		view?.resume();
	}

	/** `/model NAME` switches the model of the session's next requests; `/model` names the current one. */
	private modelCommand(name: string): void {
		const { io, style, setup } = this.options;
		const { agent, provider } = setup;
		if (name !== "") {
			agent.setModel({ ...agent.state.model, id: name });
			provider.model = name;
		}
		const verb = name === "" ? "Model" : "Model switched to";
		io.stdout.write(`${style.dim(`${verb} ${provider.provider} ${provider.model}.`)}\n\n`);
	}

	/** `/undo` takes back the last turn's file changes; `/checkpoints` lists the turns. */
	private async checkpointCommand(text: string): Promise<void> {
		const { io, style, setup } = this.options;
		const checkpoints = setup.safety.checkpoints;
		if (!checkpoints) {
			io.stdout.write(`${style.dim("Checkpoints are off in this session.")}\n\n`);
			return;
		}
		const { describeCheckpoints, describeUndo } = await import("../commands/undo.js");
		if (text === "/checkpoints") io.stdout.write(`${describeCheckpoints(setup.cwd, await checkpoints.list())}\n`);
		else io.stdout.write(`${describeUndo(setup.cwd, await checkpoints.restore({ turns: 1 }))}\n`);
	}

	/** Runs one prompt to its end. Resolves to true when it was cancelled. */
	private async runTurn(text: string): Promise<boolean> {
		const { io, style, setup } = this.options;
		const { agent } = setup;
		// One prompt, one checkpoint turn: /undo takes back everything it changed.
		setup.safety.checkpoints?.startTurn();
		const renderer = new EventRenderer({
			stream: io.stdout,
			live: true,
			style,
			columns: () => io.columns ?? 80,
			assistantText: true,
			thinking: true,
			previews: true,
		});
		const unsubscribe = agent.subscribe((event) => renderer.handle(event));
		let cancelled = false;
		const cancel = () => {
			cancelled = true;
			agent.abort();
		};
		// While a question is asked its keys are its own: none of them is typed ahead.
		const view = {
			pause: () => {
				this.input.suspend();
				renderer.pause();
			},
			resume: () => {
				renderer.resume();
				this.input.unsuspend();
			},
		};
		this.turn = { cancel, view: renderer };
		if (this.options.prompt) this.options.prompt.view = view;
		const stopListening = io.onInterrupt?.(cancel);
		const startedAt = monotonicMs();
		let summary = "";
		try {
			summary = formatTurnSummary(await agent.prompt(text), monotonicMs() - startedAt);
		} finally {
			stopListening?.();
			this.turn = undefined;
			unsubscribe();
			if (this.options.prompt) this.options.prompt.view = undefined;
			renderer.dispose();
		}
		if (cancelled) io.stdout.write(`${style.dim("Cancelled.")}\n`);
		else if (summary !== "") io.stdout.write(`${style.dim(summary)}\n`);
		io.stdout.write("\n");
		return cancelled;
	}
}

/** A prompt on one row: its first line, and how many more. */
function oneLine(text: string): string {
	const lines = text.split("\n");
	return lines.length === 1 ? text : `${lines[0]} … (+${lines.length - 1} lines)`;
}
