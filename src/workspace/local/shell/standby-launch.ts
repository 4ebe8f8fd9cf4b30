import type { ReadDescriptor } from "../../shell/exec-types.js";
import { singleQuoted } from "../../shell/single-quoted.js";
import type { ProcessContainment } from "../process/containment.js";
import { relayEnvironment } from "./output-relay.js";
import { openDescriptorsScript } from "./read-descriptors.js";

// What a standby shell (standby-shell.ts) is handed to become a command: the command's variables,
// output file and arguments, as shell text it evaluates.

/**
 * Longest launch handed to a standby. Beyond it the command starts afresh, where an environment
 * and arguments too large to execute fail at spawn with E2BIG (which the tool words for the model).
 */
const maxLaunchBytes = 256 * 1024;

/** Names a shell can `export`; a command with any other variable starts fresh (spawn passes every name). */
const shellVariableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a standby shell needs to become a command. */
export interface StandbyCommand {
	/** The program the command runs (the resolved shell, or a sandbox launcher). */
	file: string;
	/** Its arguments. */
	args: string[];
	/** Its working folder: only a standby waiting in this very folder is used. */
	cwd: string;
	/** The command's environment; the containment's marker is added. */
	env: Record<string, string>;
	/** Descriptor of the output file (this process's), opened for appending. */
	outputFile: number;
	/** Files to open on descriptors before the command starts (see `ShellExecRequest.readDescriptors`). Default: none. */
	readDescriptors?: readonly ReadDescriptor[];
}

/** SHLVL as the wrapper would have made it from the caller's: one more (bash's rule). */
function shellLevel(inherited: string | undefined): string | undefined {
	if (inherited === undefined || !/^\s*-?\d+\s*$/.test(inherited)) return undefined;
	const level = Number.parseInt(inherited, 10) + 1;
	return String(level >= 1000 ? 1 : Math.max(level, 0));
}

/**
 * The launch the standby runs: the command's variables, as a freshly started wrapper would
 * have them (PWD and OLDPWD kept only where bash keeps them), its output file (reopened through
 * this process's descriptor) and its arguments. Undefined when a variable has a name no shell
 * can set, or when the launch is too large.
 */
export function launchScript(command: StandbyCommand, containment: ProcessContainment): string | undefined {
	const env = relayEnvironment({ ...command.env, ...containment.env });
	const lines: string[] = [];
	for (const [name, value] of Object.entries(env)) {
		if (!shellVariableName.test(name)) return undefined;
		if (name === "PWD" || name === "OLDPWD" || name === "SHLVL") continue;
		lines.push(`export ${name}=${singleQuoted(value)}`);
	}
	const level = shellLevel(env.SHLVL);
	if (level !== undefined) lines.push(`export SHLVL=${level}`);
	if (env.PWD?.startsWith("/"))
		lines.push(`if [ ${singleQuoted(env.PWD)} -ef . ]; then export PWD=${singleQuoted(env.PWD)}; fi`);
	if (env.OLDPWD !== undefined)
		lines.push(`if [ -d ${singleQuoted(env.OLDPWD)} ]; then export OLDPWD=${singleQuoted(env.OLDPWD)}; fi`);
	const opens = openDescriptorsScript(command.readDescriptors);
	if (opens !== "") lines.push(opens);
	lines.push(`exec >>${singleQuoted(`/proc/${process.pid}/fd/${command.outputFile}`)} 2>&1`);
	lines.push(`set -- ${[command.file, ...command.args].map(singleQuoted).join(" ")}`);
	const launch = `${lines.join("\n")}\n`;
	return launch.length > maxLaunchBytes ? undefined : launch;
}
