/**
 * One PowerShell command in the analysis: every name of a cmdlet is a form deny rules see (`rm`,
 * `del`, `Remove-Item`), cmdlets that run code are opaque, writing cmdlets write, and native
 * programs (git, find, bash) are then read as under bash, since they receive the same words.
 */
import type { SimpleCommand } from "../bash-syntax.js";
import { joined, markOpaque, type PartState, written } from "../part-state.js";
import { writtenTargets } from "../redirections.js";
import { analyzeWords } from "../simple-command.js";
import { powerShellCommand } from "./powershell-commands.js";

/**
 * One PowerShell command: every name of a cmdlet is a form (`rm`, `del`, `Remove-Item`), cmdlets
 * that run code are opaque, writing cmdlets write; native programs (git, find, bash) are then read
 * as under bash, since they receive the same words.
 */
export function analyzePowerShellCommand(state: PartState, simple: SimpleCommand): void {
	for (const word of writtenTargets(simple.redirections))
		state.analysis.writes.push({ word, via: ">", part: state.part });
	if (!simple.words[0]) return;
	const command = powerShellCommand(simple.words);
	const args = simple.words.slice(1);
	for (const name of command.names) state.forms.push(joined([{ ...command.program, value: name }, ...args]));
	if (command.construct) {
		markOpaque(state, command.construct, written(simple.words));
		return;
	}
	for (const write of command.writes) state.analysis.writes.push({ ...write, part: state.part });
	if (command.directory) {
		state.analysis.directoryChanges.push(command.directory);
		return;
	}
	analyzeWords(state, [command.program, ...args], false, undefined);
}
