/**
 * One PowerShell command in the analysis: every name of a cmdlet is a form deny rules see (`rm`,
 * `del`, `Remove-Item`), cmdlets that run code are opaque, writing cmdlets write, and native
 * programs (git, find, bash) are then read as under bash, since they receive the same words.
 */
import type { SimpleCommand } from "../bash-syntax.js";
import { joined, markOpaque, type PartState, written } from "../part-state.js";
import { writtenTargets } from "../redirections.js";
import type { ShellWord } from "../shell-words.js";
import { analyzeWords } from "../simple-command.js";
import { powerShellCommand } from "./powershell-commands.js";

/**
 * One PowerShell command: every name of a cmdlet is a form (`rm`, `del`, `Remove-Item`), cmdlets
 * that run code are opaque, writing cmdlets write; native programs (git, find, bash) are then read
 * as under bash, since they receive the same words. A bare `--` is read both ways PowerShell may
 * take it: passed on (an executable) and dropped as the end of parameters (a script or function of
 * that name, as `npm.ps1` is on Windows), so a rule matching either reading matches.
 */
export function analyzePowerShellCommand(state: PartState, simple: SimpleCommand): void {
	for (const word of writtenTargets(simple.redirections))
		state.analysis.writes.push({ word, via: ">", part: state.part });
	if (!simple.words[0]) return;
	const end = simple.words.findIndex((word, index) => index > 0 && word.raw === "--");
	analyzeWordsOf(state, simple.words);
	if (end !== -1) analyzeWordsOf(state, simple.words.toSpliced(end, 1));
}

function analyzeWordsOf(state: PartState, words: readonly ShellWord[]): void {
	const command = powerShellCommand(words);
	const args = words.slice(1);
	for (const name of command.names) state.forms.push(joined([{ ...command.program, value: name }, ...args]));
	if (command.construct) {
		markOpaque(state, command.construct, written(words));
		return;
	}
	for (const write of command.writes) state.analysis.writes.push({ ...write, part: state.part });
	if (command.directory) {
		state.analysis.directoryChanges.push(command.directory);
		return;
	}
	analyzeWords(state, [command.program, ...args], false, undefined);
}
