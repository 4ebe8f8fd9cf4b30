/**
 * What a shell command line runs and writes, as far as a permission rule can tell. The bash
 * parser (`readBash`) reduces the line to simple commands or reports it opaque; each simple
 * command is then reduced to literal programs — wrappers unwrapped (`sudo`, `env`, `timeout`),
 * literal `bash -c` scripts read, runners' named commands collected (`find -exec`, `npx`) — and
 * its writes gathered (redirections, `tee`, writing options). Whatever cannot be reduced is an
 * opaque construct, which every deny and ask rule treats as a match.
 */
import { type Redirection, readBash, type SimpleCommand } from "./bash-syntax.js";
import { codeSource, isCodeRunner } from "./command-interpreters.js";
import { isWrapper, unwrap } from "./command-wrappers.js";
import { type OpaqueConstruct, type OpaqueConstructName, opaqueConstruct } from "./opaque-constructs.js";
import type { ShellDialect } from "./parser.js";
import { powerShellCommand } from "./powershell/powershell-commands.js";
import { readPowerShell } from "./powershell/powershell-syntax.js";
import { programEffects } from "./programs/program-effects.js";
import { readOnlyInvocation } from "./read-only/read-only-commands.js";
import { isLiteral, type ShellWord, UNKNOWN } from "./shell-words.js";

export type { OpaqueConstruct } from "./opaque-constructs.js";

export type { ShellDialect } from "./parser.js";

/** A file a command writes through a redirection, `tee` or a writing option. */
export interface WriteTarget {
	/** The target word (its `value` is the path after quote removal when it is literal). */
	word: ShellWord;
	/** How it is written: the redirection operator, `tee`, or the option (`sort -o`, `sed -i`). */
	via: string;
	/** The index of the simple command (in `CommandAnalysis.parts`) that writes it. */
	part: number;
}

/** A `cd` or `pushd`: relative paths after it are taken from somewhere else. */
export interface DirectoryChange {
	/** The literal directory, `~` for home; undefined when it cannot be read (`cd "$d"`, `cd -`). */
	path?: string;
}

/** The analysis of one command line. */
export interface CommandAnalysis {
	/** The simple commands as written (whitespace collapsed): what allow rules are matched against. */
	parts: string[];
	/** Per part: the forms deny and ask rules are checked against (`UNKNOWN` marks an expansion). */
	forms: string[][];
	/** Per part: the commands it makes another program run; an allow rule must cover each of them too. */
	inner: string[][];
	/** The first construct the rules cannot see through, if any. */
	opaque?: OpaqueConstruct;
	/** Files written through redirections, `tee` and writing options, also inside literal `bash -c` scripts. */
	writes: WriteTarget[];
	/** `cd` / `pushd` commands, in order. */
	directoryChanges: DirectoryChange[];
	/**
	 * Per part: the paths it reads when it is a read-only invocation on the default-mode list
	 * (`read-only-commands.ts`; empty when it reads none), undefined when it is not one.
	 */
	readOnlyReads: (ShellWord[] | undefined)[];
}

/** How deep `bash -c 'sh -c "…"'` scripts are read before the rest counts as opaque. */
const MAX_SCRIPT_DEPTH = 4;

/** Variables whose value the shell, the dynamic loader or a program runs as code or reads as its options. */
const codeVariable =
	/^(?:BASH_\w*|BASH|ENV|PS\d|PROMPT_COMMAND|PROMPT_DIRTRIM|SHELLOPTS|BASHOPTS|IFS|GLOBIGNORE|EXECIGNORE|CDPATH|FUNCNEST|HISTFILE|HISTCONTROL|INPUTRC|LD_\w+|GIT_\w+|NODE_OPTIONS|NPM_CONFIG_\w+|npm_config_\w+|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PAGER|MANPAGER|MANOPT|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|LESSKEY|LESS|SSH_ASKPASS|SUDO_ASKPASS|BROWSER|TAR_OPTIONS|MAKEFLAGS|MFLAGS|GDBINIT|VIMINIT|EXINIT|MYVIMRC|ZDOTDIR)$/;

/** Programs that run a command whose syntax this reader does not follow. */
const opaqueRunners = new Set(
	(
		"parallel rush su runuser script unshare nsenter setpriv chrt prlimit firejail bwrap systemd-run fakeroot " +
		"proot sg ltrace valgrind dbus-run-session xvfb-run entr numactl cgexec faketime coproc"
	).split(" "),
);

/** Builtins that store code the shell runs later, or run code they are given. */
const laterCode: ReadonlyMap<string, OpaqueConstructName> = new Map([
	["trap", "code run later"],
	["complete", "code run later"],
	["bind", "code run later"],
	["enable", "code run later"],
	["fc", "eval"],
	["eval", "eval"],
	["exec", "eval"],
	["source", "sourced code"],
	[".", "sourced code"],
	["let", "arithmetic on variables"],
]);

/** Builtins that take variable names, which may carry an arithmetic subscript (`a[$(cmd)]`) evaluated as code. */
const nameBuiltins = new Set(
	"read mapfile readarray wait getopts unset declare typeset local export readonly printf".split(" "),
);

/** Per-part working state of one analysis. */
interface PartState {
	analysis: CommandAnalysis;
	part: number;
	forms: string[];
	inner: string[];
	depth: number;
}

/**
 * Analyses `command`: its parts, the forms rules see, opaque constructs, written files and
 * directory changes. The parser of the dialect must be loaded (`loadShellParser(dialect)`).
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

/** Redirections a read-only part may carry: to `/dev/null`, or one descriptor onto another (`2>&1`). */
function harmlessRedirection({ operator, target }: Redirection): boolean {
	if (target === undefined || !isLiteral(target)) return false;
	if (operator === ">&" || operator === "<&") return /^(?:\d+|-)$/.test(target.value);
	return writingOperators.has(operator) && target.value === "/dev/null";
}

/** The paths a simple command reads when it is a read-only invocation on the list, else undefined. */
function readOnlyPart(simple: SimpleCommand): ShellWord[] | undefined {
	const program = simple.words[0];
	if (!program || simple.assignments.length > 0 || !simple.redirections.every(harmlessRedirection)) return undefined;
	if (!isLiteral(program) || program.value.includes("/")) return undefined;
	return readOnlyInvocation(program.value, simple.words);
}

/** The simple commands of `command`, as written (whitespace collapsed); the dialect's parser must be loaded. */
export function splitCommand(command: string, dialect: ShellDialect = "bash"): string[] {
	return analyzeCommand(command, dialect).parts;
}

function markOpaque(state: PartState, construct: OpaqueConstructName, text: string): void {
	state.analysis.opaque ??= opaqueConstruct(construct, text);
}

/** The words as written, for messages and for allow rules. */
function written(words: readonly ShellWord[]): string {
	return words.map((word) => word.raw).join(" ");
}

/** The words after quote removal: a form deny and ask rules are matched against. */
function joined(words: readonly ShellWord[]): string {
	return words.map((word) => word.value).join(" ");
}

/** Operators that write to their target (for `>&`, only when the target is not a descriptor). */
const writingOperators = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

/** The redirections that write to a file: not `2>&1`, `>&-`, input or heredocs. */
export function writtenTargets(redirections: readonly Redirection[]): ShellWord[] {
	const targets: ShellWord[] = [];
	for (const { operator, target } of redirections) {
		if (!writingOperators.has(operator) || target === undefined) continue;
		if (operator === ">&" && /^(?:\d+-?|-)$/.test(target.raw)) continue;
		targets.push(target);
	}
	return targets;
}

/** One simple command (also one of a `bash -c` script read at some depth). */
function analyzeSimpleCommand(state: PartState, command: SimpleCommand): void {
	for (const word of writtenTargets(command.redirections)) {
		state.analysis.writes.push({ word, via: ">", part: state.part });
	}
	for (const assignment of command.assignments) {
		if (assignment.subscript) markOpaque(state, "array subscript", assignment.text);
		else if (codeVariable.test(assignment.name)) markOpaque(state, "code in a variable", assignment.text);
	}
	if (command.words.length === 0) state.forms.push(command.text);
	analyzeWords(state, command.words, false, undefined);
}

/**
 * The words of a command after assignments: checks the program word, unwraps wrappers, reads
 * shells' scripts, and gathers runners' commands and writes. `appendsInput` is true under
 * `xargs`, whose input may complete the command; `replace` is xargs' `-I` placeholder.
 */
function analyzeWords(
	state: PartState,
	initial: readonly ShellWord[],
	appendsInput: boolean,
	replace: string | undefined,
	nested = false,
): void {
	let words = initial;
	let inputAppended = appendsInput;
	let placeholder = replace;
	for (let guard = 0; guard < 16; guard++) {
		const program = words[0];
		if (!program) return;
		state.forms.push(joined(words));
		if (guard > 0 || nested) state.inner.push(written(words) + (inputAppended ? ` ${UNKNOWN}` : ""));
		if (!checkProgramWord(state, program, placeholder)) return;
		const name = program.value.slice(program.value.lastIndexOf("/") + 1);
		if (name !== program.value) state.forms.push(joined([{ ...program, value: name }, ...words.slice(1)]));
		if (
			placeholder !== undefined &&
			isCodeRunner(name) &&
			words.some((word) => word.value.includes(placeholder as string))
		) {
			markOpaque(state, "command from input", written(words));
			return;
		}
		if (!isWrapper(name)) {
			analyzeProgram(state, name, words, inputAppended);
			return;
		}
		const inner = unwrap(name, words);
		if (inner.kind === "opaque") {
			const construct = inner.construct === "unknown option" ? "unknown wrapper option" : "shell reading its input";
			markOpaque(state, construct, inner.text);
			return;
		}
		if (inner.kind === "script") {
			if (!inner.script.every(isLiteral)) {
				markOpaque(state, "script from a variable", written(inner.script));
				return;
			}
			analyzeScript(state, joined(inner.script));
			return;
		}
		words = inner.words;
		inputAppended ||= inner.appendsInput;
		placeholder = inner.replace ?? placeholder;
		if (words.length === 0 && !inner.appendsInput && inputAppended) {
			markOpaque(state, "command from input", name);
			return;
		}
	}
	markOpaque(state, "nesting too deep", written(words));
}

/** Checks that the program word is a literal name; marks the part opaque otherwise. */
function checkProgramWord(state: PartState, program: ShellWord, placeholder: string | undefined): boolean {
	if (program.expands) {
		markOpaque(state, "expanded command name", program.raw);
		return false;
	}
	if (placeholder !== undefined && program.value.includes(placeholder)) {
		markOpaque(state, "command from input", program.raw);
		return false;
	}
	if (program.globs && program.raw !== "[" && program.raw !== "[[") {
		markOpaque(state, "glob in the command name", program.raw);
		return false;
	}
	return true;
}

/** Builtins that define or run code, or evaluate variable names; false when the part is opaque. */
function checkBuiltin(state: PartState, name: string, words: readonly ShellWord[]): boolean {
	const args = words.slice(1);
	const later = laterCode.get(name);
	const listing = args.every((word) => /^-[pl]$/.test(word.value));
	if (later && !(name === "trap" && listing) && !(name === "exec" && args.length === 0)) {
		markOpaque(state, later, written(words));
		return false;
	}
	const defines =
		(name === "alias" && args.some((word) => word.value.includes("="))) ||
		(name === "hash" && args.some((word) => !isLiteral(word) || /^-\w*[pd]/.test(word.value))) ||
		(name === "compgen" && args.some((word) => /^-\w*[CFX]/.test(word.value))) ||
		((name === "mapfile" || name === "readarray") && args.some((word) => /^-\w*C/.test(word.value)));
	if (defines) {
		markOpaque(state, "code run later", written(words));
		return false;
	}
	if (name === "test" || name === "[") {
		if (args.some((word) => word.value === "-v" || word.value === "-R")) {
			markOpaque(state, "conditional expression", written(words));
			return false;
		}
	}
	if (!nameBuiltins.has(name)) return true;
	let names = args;
	if (name === "printf") {
		// Only `printf -v NAME` assigns; its other arguments are data.
		const at = args.findIndex((word) => word.value.startsWith("-v"));
		if (at === -1) return true;
		names = args[at]?.value === "-v" ? args.slice(at + 1, at + 2) : args.slice(at, at + 1);
	}
	const declaration = ["declare", "typeset", "local", "export", "readonly"].includes(name);
	for (const word of names) {
		const badOption = declaration && /^[-+]/.test(word.value) && /[^-+xrgpfFlut]/.test(word.value);
		if (!isLiteral(word) || /\[/.test(word.value) || badOption) {
			markOpaque(state, badOption ? "code in a variable" : "array subscript", written(words));
			return false;
		}
	}
	return true;
}

/** A program that is not a wrapper: builtins, shells, interpreters, runners, tee, cd. */
function analyzeProgram(state: PartState, name: string, words: readonly ShellWord[], inputAppended: boolean): void {
	if (opaqueRunners.has(name)) {
		markOpaque(state, "command runner", written(words));
		return;
	}
	if (!checkBuiltin(state, name, words)) return;
	const source = codeSource(name, words);
	if (source?.kind === "opaque") {
		markOpaque(state, source.construct, written(words));
		return;
	}
	if (source?.kind === "script") {
		if (inputAppended) markOpaque(state, "command from input", written(words));
		else analyzeScript(state, source.script);
		return;
	}
	const effects = programEffects(name, words);
	if (effects) {
		if (effects.runner !== undefined) markOpaque(state, "command runner", effects.runner);
		for (const write of effects.writes) state.analysis.writes.push({ ...write, part: state.part });
		for (const inner of effects.runs) analyzeWords(state, inner, false, "{}", true);
		for (const script of effects.scripts) analyzeScript(state, script);
		return;
	}
	if (name === "tee") recordTeeTargets(state, words);
	else if (name === "cd" || name === "pushd") recordDirectoryChange(state, words);
}

/** Reads a script (a literal `bash -c` argument) as a command line of its own. */
function analyzeScript(state: PartState, script: string): void {
	if (state.depth >= MAX_SCRIPT_DEPTH) {
		markOpaque(state, "nesting too deep", script);
		return;
	}
	const reading = readBash(script);
	if (reading.opaque) markOpaque(state, reading.opaque.construct, reading.opaque.text);
	for (const simple of reading.commands) {
		state.forms.push(simple.text);
		state.inner.push(simple.text);
		analyzeSimpleCommand({ ...state, depth: state.depth + 1 }, simple);
	}
}

function recordTeeTargets(state: PartState, words: readonly ShellWord[]): void {
	let options = true;
	for (const word of words.slice(1)) {
		if (options && word.value === "--") {
			options = false;
			continue;
		}
		if (options && isLiteral(word) && word.value.startsWith("-") && word.value !== "-") continue;
		state.analysis.writes.push({ word, via: "tee", part: state.part });
	}
}

function recordDirectoryChange(state: PartState, words: readonly ShellWord[]): void {
	const operand = words.slice(1).find((word) => !(isLiteral(word) && /^-[LPe@]+$/.test(word.value)));
	if (!operand) {
		state.analysis.directoryChanges.push({ path: "~" });
		return;
	}
	const readable = isLiteral(operand) && operand.value !== "-";
	state.analysis.directoryChanges.push(readable ? { path: operand.value } : {});
}

/**
 * One PowerShell command: every name of a cmdlet is a form (`rm`, `del`, `Remove-Item`), cmdlets
 * that run code are opaque, writing cmdlets write; native programs (git, find, bash) are then read
 * as under bash, since they receive the same words.
 */
function analyzePowerShellCommand(state: PartState, simple: SimpleCommand): void {
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
