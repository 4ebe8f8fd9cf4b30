import { isSecretVariableName, withoutCredentials } from "./secret-variables.js";

/**
 * Variables that keep commands from waiting for a person: pagers print straight through, editors
 * fail instead of opening, git never prompts for credentials, installers take defaults, and
 * tools that check `CI` behave as in a pipeline.
 */
export const nonInteractiveEnvironment: Readonly<Record<string, string>> = {
	CI: "1",
	PAGER: "cat",
	GIT_PAGER: "cat",
	MANPAGER: "cat",
	SYSTEMD_PAGER: "",
	LESS: "-FRX",
	EDITOR: "false",
	VISUAL: "false",
	GIT_EDITOR: "false",
	GIT_SEQUENCE_EDITOR: "false",
	GIT_TERMINAL_PROMPT: "0",
	GIT_ASKPASS: "",
	SSH_ASKPASS: "",
	GCM_INTERACTIVE: "never",
	DEBIAN_FRONTEND: "noninteractive",
	PIP_NO_INPUT: "1",
	NPM_CONFIG_YES: "true",
	HOMEBREW_NO_AUTO_UPDATE: "1",
	PYTHONUNBUFFERED: "1",
	TERM: "dumb",
};

/**
 * The environment of a command: this process's environment without the variables whose names
 * mark a secret (`isSecretVariableName`) and with credentials taken out of the others' values
 * (`withoutCredentials`: `DATABASE_URL=postgres://user:pw@db/app` arrives as `postgres://db/app`;
 * a value holding a known token format is left out), unless `passEnvironment` names the variable;
 * overridden by the non-interactive defaults, overridden by the tool's `env` option (so a user can
 * deliberately undo a default, or hand a command a secret).
 */
export function buildShellEnvironment(
	extra: Record<string, string> = {},
	passEnvironment: readonly string[] = [],
): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (value === undefined) continue;
		if (passEnvironment.includes(name)) env[name] = value;
		else if (!isSecretVariableName(name)) {
			const kept = withoutCredentials(value);
			if (kept !== undefined) env[name] = kept;
		}
	}
	return { ...env, ...nonInteractiveEnvironment, ...extra };
}

let environmentJudged = false;

/**
 * Builds a command's environment once, the result unused, as the first shell tool of a process is
 * created: V8 compiles each regular expression of the rules on its first use (and again as it tiers
 * up) and this code with them, 1-2 ms of CPU that would otherwise come before the first command
 * can start. Each call still builds its own environment from `process.env` as it is then.
 */
export function judgeEnvironmentAhead(): void {
	if (environmentJudged) return;
	environmentJudged = true;
	buildShellEnvironment();
}
