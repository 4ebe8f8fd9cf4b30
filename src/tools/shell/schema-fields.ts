import { Type } from "../../engine/index.js";

/**
 * The arguments bash and powershell share besides their `command`: one home, so the two shells
 * never drift apart in what the model may ask of them.
 */
export const shellCommandFields = {
	description: Type.Optional(
		Type.String({ description: "What the command does, in a few words (shown to people, not run)." }),
	),
	timeout: Type.Optional(
		Type.Number({
			description: "Seconds before the command and all its processes are killed. Default 120.",
			exclusiveMinimum: 0,
		}),
	),
	run_in_background: Type.Optional(
		Type.Boolean({
			description:
				"Start the command as a background job and return at once with its id and first output (for servers, watchers, anything that does not end). Read it with bash_output, stop it with bash_kill. Default false.",
		}),
	),
	tty: Type.Optional(
		Type.Boolean({
			description:
				"Run under a pseudo-terminal, for a command that needs one (a REPL, a prompt, a progress UI). Default false.",
		}),
	),
};

/** The schema of a shell tool: a `command` for that shell, and the shared fields. */
export function shellCommandSchema(shell: string) {
	return Type.Object({
		command: Type.String({ description: `The ${shell} command to run.` }),
		...shellCommandFields,
	});
}

/** The arguments schema every shell tool takes. */
export type ShellCommandSchema = ReturnType<typeof shellCommandSchema>;
