import { createInterface } from "node:readline";
import type { ReadStream } from "node:tty";
import { type CliIO, ExitCode } from "../io.js";
import type { TerminalPermissionPrompt } from "../prompts/permission-prompt.js";
import { EventRenderer } from "../render/event-renderer.js";
import type { Style } from "../render/style.js";
import { formatTurnSummary } from "../render/turn-summary.js";
import type { AgentSetup } from "../setup/agent-setup.js";
import { handleJobsCommand, jobsHelp, jobsStatus } from "./jobs-commands.js";

const sessionHelp = `Type a request and press Enter. While the agent works, Ctrl-C cancels the turn.
  /new    start a new conversation (forget the transcript)
  /model [NAME]  show the model, or switch to NAME from the next prompt (toolbelt config sets the default)
${jobsHelp}
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
	private readonly history: string[] = [];

	constructor(options: InteractiveSessionOptions) {
		this.options = options;
	}

	/** Runs until Ctrl-D, `/exit` or the end of input. Resolves to the exit code. */
	async run(): Promise<number> {
		const { io, style } = this.options;
		io.stdout.write(`${this.options.banner}\n${style.dim("Ctrl-C cancels a turn · Ctrl-D exits · /help")}\n\n`);
		for (;;) {
			const line = await this.readLine();
			if (line === undefined) break;
			const text = line.trim();
			if (text === "") continue;
			if (text === "/exit" || text === "/quit") break;
			if (text === "/help") {
				io.stdout.write(`${sessionHelp}\n\n`);
				continue;
			}
			if (await handleJobsCommand(text, this.options.setup.jobs, io, style)) continue;
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
			if (await this.runTurn(text)) break;
		}
		io.stdout.write("\n");
		return ExitCode.ok;
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

	/** Reads one line; undefined on Ctrl-D or end of input. */
	private readLine(): Promise<string | undefined> {
		const { io, style } = this.options;
		return new Promise((resolve) => {
			const readline = createInterface({
				input: io.stdin,
				output: io.stdout,
				terminal: true,
				// A copy: readline adds to the array it is given, and this one outlives the interface.
				history: [...this.history],
				historySize: 1000,
				removeHistoryDuplicates: true,
				prompt: `${jobsStatus(this.options.setup.jobs, style)}${style.cyan("›")} `,
			});
			let answer: string | undefined;
			readline.on("line", (line) => {
				answer = line;
				if (line.trim() !== "" && this.history[0] !== line) this.history.unshift(line);
				readline.close();
			});
			readline.on("SIGINT", () => {
				if (readline.line !== "") {
					readline.write(null, { ctrl: true, name: "e" });
					readline.write(null, { ctrl: true, name: "u" });
					return;
				}
				io.stdout.write(`\n${style.dim("(Ctrl-D or /exit to leave)")}\n`);
				readline.prompt();
			});
			readline.on("close", () => resolve(answer));
			readline.prompt();
		});
	}

	/** Runs one prompt to its end. Resolves to true when the person asked to exit (Ctrl-D) meanwhile. */
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
		if (this.options.prompt) this.options.prompt.view = renderer;
		let cancelled = false;
		let exitAfter = false;
		const cancel = () => {
			cancelled = true;
			agent.abort();
		};
		// Raw mode, so Ctrl-C reaches us as a byte instead of killing the process.
		const input = io.stdin as Partial<ReadStream> & typeof io.stdin;
		const raw = typeof input.setRawMode === "function" && input.isTTY === true;
		if (raw) input.setRawMode?.(true);
		const onData = (chunk: Buffer | string) => {
			const typed = chunk.toString();
			if (typed.includes("\x04")) exitAfter = true;
			if (typed.includes("\x03") || typed.includes("\x04")) cancel();
		};
		input.on("data", onData);
		input.resume();
		const stopListening = io.onInterrupt?.(cancel);
		const startedAt = Date.now();
		let summary = "";
		try {
			summary = formatTurnSummary(await agent.prompt(text), Date.now() - startedAt);
		} finally {
			stopListening?.();
			input.off("data", onData);
			input.pause();
			if (raw) input.setRawMode?.(false);
			unsubscribe();
			if (this.options.prompt) this.options.prompt.view = undefined;
			renderer.dispose();
		}
		if (cancelled) io.stdout.write(`${style.dim("Cancelled.")}\n`);
		else if (summary !== "") io.stdout.write(`${style.dim(summary)}\n`);
		io.stdout.write("\n");
		return exitAfter;
	}
}
