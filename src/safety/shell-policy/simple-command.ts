/**
 * One simple command of a command line (also of a literal `bash -c` script), reduced to the
 * literal programs it runs: wrappers unwrapped (`sudo`, `env`, `timeout`), shells' literal
 * scripts read as command lines of their own, runners' named commands collected (`find -exec`,
 * `npx`), and its writes gathered (redirections, `tee`, writing options). Whatever cannot be
 * reduced marks the part opaque.
 */
import { readBash, type SimpleCommand } from "./bash-syntax.js";
import { joined, markOpaque, type PartState, written } from "./part-state.js";
import { programEffects } from "./programs/program-effects.js";
import { expandedTwice, writtenTargets } from "./redirections.js";
import { checkBuiltin } from "./runners/builtin-commands.js";
import { isCodeVariable } from "./runners/code-variables.js";
import { codeSource, isCodeRunner } from "./runners/command-interpreters.js";
import { isWrapper, unwrap } from "./runners/command-wrappers.js";
import { isLiteral, type ShellWord, UNKNOWN } from "./shell-words.js";

/** How deep `bash -c 'sh -c "…"'` scripts are read before the rest counts as opaque. */
const MAX_SCRIPT_DEPTH = 4;

/** Programs that run a command whose syntax this reader does not follow. */
const opaqueRunners = new Set(
	(
		"parallel rush su runuser script unshare nsenter setpriv chrt prlimit firejail bwrap systemd-run fakeroot " +
		"proot sg ltrace valgrind dbus-run-session xvfb-run entr numactl cgexec faketime coproc"
	).split(" "),
);

/** One simple command (also one of a `bash -c` script read at some depth). */
export function analyzeSimpleCommand(state: PartState, command: SimpleCommand): void {
	for (const word of writtenTargets(command.redirections)) {
		state.analysis.writes.push({ word, via: ">", part: state.part });
	}
	const twice = command.redirections.find(expandedTwice);
	if (twice) markOpaque(state, "redirection expanded twice", `>&${twice.target?.raw ?? ""}`);
	for (const assignment of command.assignments) {
		if (assignment.subscript) markOpaque(state, "array subscript", assignment.text);
		else if (isCodeVariable(assignment.name)) markOpaque(state, "code in a variable", assignment.text);
	}
	if (command.redirections.length > 0) checkDescriptorVariables(state, command.words);
	if (command.words.length === 0) state.forms.push(command.text);
	analyzeWords(state, command.words, false, undefined);
}

/** `{name}` or `{name[subscript]}` as a word: right before a redirection, bash assigns it the descriptor it opens. */
const descriptorVariable = /^\{([A-Za-z_]\w*)(\[.*\])?\}$/s;

/**
 * `{a[x]}>f` assigns an array element, whose subscript bash evaluates as arithmetic (with
 * `x='b[$(cmd)]'` it runs `cmd`); `set -a; {BASH_ENV}>f` exports a code variable. The grammar
 * reads `{…}` as an argument; such a word in a command with redirections counts as the assignment.
 */
function checkDescriptorVariables(state: PartState, words: readonly ShellWord[]): void {
	for (const word of words) {
		const match = descriptorVariable.exec(word.raw);
		if (!match) continue;
		if (match[2] !== undefined) markOpaque(state, "array subscript", word.raw);
		else if (isCodeVariable(match[1] as string)) markOpaque(state, "code in a variable", word.raw);
	}
}

/**
 * The words of a command after assignments: checks the program word, unwraps wrappers, reads
 * shells' scripts, and gathers runners' commands and writes. `appendsInput` is true under
 * `xargs`, whose input may complete the command; `replace` is xargs' `-I` placeholder.
 */
export function analyzeWords(
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
			markOpaque(state, inner.construct, inner.text);
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
		for (const directory of inner.directories ?? []) recordDirectory(state, directory);
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
		for (const directory of effects.directories) recordDirectory(state, directory);
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

/** A folder a wrapper or a program runs in (`env -C dir`, `git -C dir`): relative writes may be taken from it. */
function recordDirectory(state: PartState, directory: ShellWord): void {
	state.analysis.directoryChanges.push(isLiteral(directory) ? { path: directory.value } : {});
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
