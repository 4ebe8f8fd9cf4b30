/**
 * What a shell command line runs and writes, as far as a permission rule can tell. The parser of
 * the dialect (`readBash`, `readPowerShell`) reduces the line to simple commands or reports it
 * opaque; each simple command is then reduced to literal programs and its writes
 * (`simple-command.ts`, `powershell/powershell-analysis.ts`). Whatever cannot be reduced is an
 * opaque construct, which every deny and ask rule treats as a match.
 */
import { readBash } from "./bash-syntax.js";
import { opaqueConstruct } from "./opaque-constructs.js";
import type { ShellDialect } from "./parser.js";
import type { CommandAnalysis, PartState } from "./part-state.js";
import { analyzePowerShellCommand } from "./powershell/powershell-analysis.js";
import { readPowerShell } from "./powershell/powershell-syntax.js";
import { readOnlyPart } from "./read-only/read-only-part.js";
import { analyzeSimpleCommand } from "./simple-command.js";

export type { OpaqueConstruct } from "./opaque-constructs.js";
export type { ShellDialect } from "./parser.js";
export type { CommandAnalysis, DirectoryChange, WriteTarget } from "./part-state.js";
export { writtenTargets } from "./redirections.js";

/**
 * Analyses `command`: its parts, the forms rules see, opaque constructs, written files and
 * directory changes. The parser of the dialect must be loaded (`loadShellParser(dialect)`), except
 * for a bash line of plain words (`plainWords`): else it throws `ShellParserNotLoaded`.
 */
export function analyzeCommand(command: string, dialect: ShellDialect = "bash"): CommandAnalysis {
	const analysis: CommandAnalysis = {
		parts: [],
		forms: [],
		inner: [],
		writes: [],
		directoryChanges: [],
		readOnlyReads: [],
	};
	const powerShell = dialect === "powershell";
	const reading = powerShell ? readPowerShell(command) : readBash(command);
	if (reading.opaque) analysis.opaque = opaqueConstruct(reading.opaque.construct, reading.opaque.text);
	for (const simple of reading.commands) {
		const state: PartState = { analysis, part: analysis.parts.length, forms: [], inner: [], depth: 0 };
		analysis.parts.push(simple.text);
		if (powerShell) analyzePowerShellCommand(state, simple);
		else analyzeSimpleCommand(state, simple);
		analysis.forms.push(state.forms.length > 2 ? [...new Set(state.forms)] : state.forms);
		analysis.inner.push(state.inner);
		// The default-mode list of read-only commands is bash's; PowerShell's aliases change what a name runs.
		analysis.readOnlyReads.push(powerShell ? undefined : readOnlyPart(simple));
	}
	return analysis;
}

/** The simple commands of `command`, as written (whitespace collapsed); the dialect's parser must be loaded. */
export function splitCommand(command: string, dialect: ShellDialect = "bash"): string[] {
	return analyzeCommand(command, dialect).parts;
}
