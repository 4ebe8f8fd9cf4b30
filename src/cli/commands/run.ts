import type { AgentEndEvent, AgentEvent, AssistantMessage, Message } from "../../agent/index.js";
import { booleanOption, type ParsedArgs, UsageError } from "../args.js";
import { type CliIO, ExitCode, readPipedStdin } from "../io.js";
import { EventRenderer } from "../render/event-renderer.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { createAgentSetup } from "../setup/agent-setup.js";
import { describeProjectInstructions } from "../setup/project-instructions.js";
import { resolveProviderConfig } from "../setup/provider-config.js";
import { withUserDefaults } from "../setup/user-config.js";

/**
 * The prompt: the arguments joined by spaces, with a `-` argument replaced by piped stdin; or
 * stdin alone when there are no arguments. Stdin is never read otherwise, so a script whose
 * stdin stays open does not hang.
 */
async function readPrompt(positionals: readonly string[], io: CliIO): Promise<string> {
	let stdin: string | undefined;
	const readStdin = async () => {
		stdin ??= (await readPipedStdin(io)) ?? "";
		return stdin;
	};
	const parts: string[] = [];
	for (const argument of positionals) parts.push(argument === "-" ? await readStdin() : argument);
	const prompt = positionals.length > 0 ? parts.join(" ") : await readStdin();
	if (prompt.trim() === "") {
		throw new UsageError('Missing the prompt: toolbelt run "<prompt>", or pipe it: echo "<prompt>" | toolbelt run.');
	}
	return prompt;
}

function finalText(messages: readonly Message[]): string {
	const last = messages.filter((message): message is AssistantMessage => message.role === "assistant").at(-1);
	if (!last) return "";
	return last.content
		.flatMap((block) => (block.type === "text" ? [block.text] : []))
		.join("")
		.trim();
}

/** A JSON line per event. Streaming updates drop the partial message (it repeats everything so far). */
function eventToJson(event: AgentEvent): string {
	if (event.type === "message_update") {
		const { partial: _partial, ...update } = event.assistantMessageEvent as typeof event.assistantMessageEvent & {
			partial?: unknown;
		};
		return JSON.stringify({ type: event.type, assistantMessageEvent: update });
	}
	return JSON.stringify(event);
}

/**
 * `toolbelt run "<prompt>"`: print mode. The final answer goes to stdout, progress to stderr
 * (or every event as a JSON line to stdout with `--json`). Exit 0 done, 1 error, 130 cancelled.
 */
export async function runRunCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	// Configuration problems first: they need no prompt and no stdin.
	resolveProviderConfig(withUserDefaults(args.values, io.env), io.env);
	const prompt = await readPrompt(args.positionals, io);
	const json = booleanOption(args.values, "json");
	const setup = await createAgentSetup(args, io);
	const { agent } = setup;
	// Said only when something is missing from the prompt: a file left unread or cut.
	if (setup.instructions.untrusted || setup.instructions.cut.length > 0)
		io.stderr.write(`toolbelt: ${describeProjectInstructions(setup.instructions)}\n`);

	const stderrIsTTY = io.stderrIsTTY ?? io.isTTY;
	const renderer = json
		? undefined
		: new EventRenderer({
				stream: io.stderr,
				live: stderrIsTTY,
				style: createStyle(colorEnabled(stderrIsTTY, io.env)),
				columns: () => io.columns ?? 80,
			});
	let end: AgentEndEvent | undefined;
	const unsubscribe = agent.subscribe((event) => {
		if (event.type === "agent_end") end = event;
		if (json) io.stdout.write(`${eventToJson(event)}\n`);
		else renderer?.handle(event);
	});
	// First Ctrl-C cancels cleanly; a second one gives up waiting for the run (and MCP servers) to wind down.
	let interrupted = false;
	let forceQuit = () => {};
	const forced = new Promise<"forced">((resolve) => {
		forceQuit = () => resolve("forced");
	});
	const stopListening = io.onInterrupt?.(() => {
		if (interrupted) forceQuit();
		interrupted = true;
		agent.abort();
	});
	let quitting = false;
	try {
		const outcome = await Promise.race([agent.prompt(prompt), forced]);
		if (outcome === "forced") {
			quitting = true;
			io.stderr.write("toolbelt: cancelled (forced).\n");
			return ExitCode.cancelled;
		}
		const messages = outcome;
		const reason = end?.reason ?? (interrupted ? "aborted" : "error");
		if (reason === "aborted" || interrupted) {
			io.stderr.write("toolbelt: cancelled.\n");
			return ExitCode.cancelled;
		}
		if (!json) {
			const text = finalText(messages);
			if (text !== "") io.stdout.write(`${text}\n`);
		}
		if (reason === "error") {
			// The renderer already showed an error reply; other failures (a hook, the loop) are said here.
			const shown = !json && messages.some((message) => message.role === "assistant" && message.stopReason === "error");
			if (!shown) io.stderr.write(`toolbelt: ${end?.errorMessage ?? "the run failed."}\n`);
			return ExitCode.error;
		}
		if (reason === "maxTurns") {
			if (json) io.stderr.write("toolbelt: stopped at the turn limit (raise it with --max-turns).\n");
			return ExitCode.error;
		}
		return ExitCode.ok;
	} finally {
		stopListening?.();
		unsubscribe();
		renderer?.dispose();
		// Whatever the outcome: the person should learn which flags would have let the calls run.
		const hint = setup.safety.approvals.text("toolbelt run");
		if (hint) io.stderr.write(hint);
		if (quitting) void setup.close();
		else await setup.close();
	}
}
