import { homedir } from "node:os";
import { type ParsedArgs, UsageError } from "../args.js";
import { InteractiveSession } from "../interactive/session.js";
import type { CliIO } from "../io.js";
import { TerminalPermissionPrompt } from "../prompts/permission-prompt.js";
import { TerminalTrustPrompt } from "../prompts/trust-prompt.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { createAgentSetup } from "../setup/agent-setup.js";
import { describeProjectInstructions } from "../setup/project-instructions.js";
import { packageVersion } from "../version.js";

function shortPath(path: string): string {
	const home = homedir();
	return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** `toolbelt` with no command: the interactive session (needs a terminal). */
export async function runInteractiveCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	if (!io.isTTY) {
		throw new UsageError(
			'The interactive session needs a terminal. In scripts use: toolbelt run "<prompt>" (or pipe the prompt into toolbelt run).',
		);
	}
	const style = createStyle(colorEnabled(true, io.env));
	const prompt = new TerminalPermissionPrompt({ io, style });
	const trustPrompt = new TerminalTrustPrompt({ io, style });
	const setup = await createAgentSetup(args, io, {
		ask: prompt.ask,
		askTrust: trustPrompt.ask,
		source: "interactive",
	});
	const { provider, model } = setup.provider;
	let banner = `${style.bold("toolbelt")} ${packageVersion()} · ${provider} ${model} · ${shortPath(setup.cwd)}\n${style.dim(
		`Tools: ${setup.toolNames.join(", ")} · mode ${setup.safety.mode}`,
	)}`;
	const instructions = describeProjectInstructions(setup.instructions);
	if (instructions !== "") banner += `\n${style.dim(instructions)}`;
	try {
		return await new InteractiveSession({ setup, io, style, banner, prompt }).run();
	} finally {
		await setup.close();
	}
}
