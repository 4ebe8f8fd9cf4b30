/**
 * What a shell command line runs and writes, as far as a permission rule can tell. Each simple
 * command (from `splitCommand`) is reduced to literal program names — leading redirections and
 * assignments dropped, known wrappers unwrapped, literal `bash -c` scripts read — and whatever
 * cannot be reduced is reported as an opaque construct, which deny and ask rules treat as a match.
 */
import { codeSource, isCodeRunner } from "./command-interpreters.js";
import { type ShellDialect, splitCommand } from "./command-split.js";
import { isLiteral, readCommandWords, type ShellWord, writtenTargets } from "./command-words.js";
import { isWrapper, unwrap } from "./command-wrappers.js";
import { type OpaqueConstruct, type OpaqueConstructName, opaqueConstruct } from "./opaque-constructs.js";

export type { OpaqueConstruct } from "./opaque-constructs.js";

/** A file a command writes through a redirection or `tee`. */
export interface WriteTarget {
	/** The target word (its `value` is the path after quote removal when it is literal). */
	word: ShellWord;
	/** How it is written: the redirection operator, or `tee`. */
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
	/** The simple commands, as `splitCommand` returns them. */
	parts: string[];
	/** Per part: the forms deny and ask rules are checked against (the part as written first). */
	forms: string[][];
	/** The first construct the rules cannot see through, if any. */
	opaque?: OpaqueConstruct;
	/** Files written through redirections and `tee`, also inside literal `bash -c` scripts. */
	writes: WriteTarget[];
	/** `cd` / `pushd` commands, in order. */
	directoryChanges: DirectoryChange[];
}

/** How deep `bash -c 'sh -c "…"'` scripts are read before the rest counts as opaque. */
const MAX_SCRIPT_DEPTH = 4;

/** Variables whose value the shell runs or sources as code. */
const codeVariables = new Set(["BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS4", "PROMPT_COMMAND", "SHELLOPTS"]);

/** Programs that run a command whose syntax this parser does not read. */
const opaqueRunners = new Set([
	"parallel",
	"rush",
	"su",
	"runuser",
	"script",
	"unshare",
	"nsenter",
	"setpriv",
	"chrt",
	"prlimit",
	"firejail",
	"bwrap",
	"systemd-run",
	"fakeroot",
	"proot",
	"sg",
	"ltrace",
	"valgrind",
	"dbus-run-session",
	"xvfb-run",
	"entr",
	"numactl",
	"cgexec",
	"faketime",
]);

/** Reserved words that open a construct the rules cannot follow. */
const opaqueKeywords: ReadonlyMap<string, OpaqueConstructName> = new Map([
	["case", "case statement"],
	["esac", "case statement"],
	["coproc", "coproc"],
	["function", "function definition"],
	["select", "select loop"],
]);

/** Per-part working state of one analysis. */
interface PartState {
	analysis: CommandAnalysis;
	part: number;
	forms: string[];
	depth: number;
	dialect: ShellDialect;
}

/** Analyses `command`: its parts, the forms rules see, opaque constructs, written files and directory changes. */
export function analyzeCommand(command: string, dialect: ShellDialect = "bash"): CommandAnalysis {
	return analyzeParts(splitCommand(command, dialect), dialect);
}

/** Analyses the simple commands `splitCommand` returned for a command line. */
export function analyzeParts(parts: string[], dialect: ShellDialect = "bash"): CommandAnalysis {
	const analysis: CommandAnalysis = { parts, forms: [], writes: [], directoryChanges: [] };
	for (const [index, part] of parts.entries()) {
		const state: PartState = { analysis, part: index, forms: [part], depth: 0, dialect };
		if (dialect === "bash") analyzeBashPart(state, part);
		else analyzePowerShellPart(state, part);
		analysis.forms.push(state.forms.length > 2 ? [...new Set(state.forms)] : state.forms);
	}
	return analysis;
}

function markOpaque(state: PartState, construct: OpaqueConstructName, text: string): void {
	state.analysis.opaque ??= opaqueConstruct(construct, text);
}

/** The words as written, for messages. */
function written(words: readonly ShellWord[]): string {
	return words.map((word) => word.raw).join(" ");
}

/** The words after quote removal: a form rules are matched against. */
function joined(words: readonly ShellWord[]): string {
	return words.map((word) => word.value).join(" ");
}

/** One simple command in bash syntax (also a part of a `bash -c` script read at some depth). */
function analyzeBashPart(state: PartState, part: string): void {
	const { words, redirections } = readCommandWords(part);
	for (const word of writtenTargets(redirections)) {
		state.analysis.writes.push({ word, via: ">", part: state.part });
	}
	let index = 0;
	for (; index < words.length && isAssignment(words[index] as ShellWord); index++) {
		const name = (words[index] as ShellWord).raw.replace(/[+[=].*$/s, "");
		if (codeVariables.has(name) || name.startsWith("BASH_FUNC_")) markOpaque(state, "code in a variable", name);
	}
	analyzeWords(state, words.slice(index), false, undefined);
}

function isAssignment(word: ShellWord): boolean {
	return /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.test(word.raw);
}

/**
 * The words of a command after assignments: checks the program word, unwraps wrappers, reads
 * shells' scripts, and records `tee` targets and `cd`s. `appendsInput` is true under `xargs`,
 * whose input may complete the command; `replace` is xargs' `-I` placeholder.
 */
function analyzeWords(
	state: PartState,
	initial: readonly ShellWord[],
	appendsInput: boolean,
	replace: string | undefined,
): void {
	let words = initial;
	let inputAppended = appendsInput;
	let placeholder = replace;
	for (let guard = 0; guard < 16; guard++) {
		const program = words[0];
		if (!program) return;
		// `time -p cmd` reaches here as `-p cmd` (the reserved word is stripped by the split).
		if (guard === 0 && (program.raw === "-p" || program.raw === "--")) {
			words = words.slice(1);
			continue;
		}
		state.forms.push(joined(words));
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
			markOpaque(
				state,
				inner.construct === "unknown option" ? "unknown wrapper option" : "shell reading its input",
				inner.text,
			);
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
	// `[ -f x ]` and `[[ … ]]` are the test builtin, not a glob.
	if (program.raw === "[" || program.raw === "[[") return true;
	const keyword = opaqueKeywords.get(program.value);
	if (keyword && program.raw === program.value) {
		markOpaque(state, keyword, program.raw);
		return false;
	}
	if (program.syntax) {
		markOpaque(state, /\(\)$/.test(program.raw) ? "function definition" : "case statement", program.raw);
		return false;
	}
	if (program.expands) {
		markOpaque(state, "expanded command name", program.raw);
		return false;
	}
	if (placeholder !== undefined && program.value.includes(placeholder)) {
		markOpaque(state, "command from input", program.raw);
		return false;
	}
	if (program.globs) {
		markOpaque(state, "glob in the command name", program.raw);
		return false;
	}
	return true;
}

/** A program that is not a wrapper: shells, interpreters, eval, trap, find -exec, tee, cd. */
function analyzeProgram(state: PartState, name: string, words: readonly ShellWord[], inputAppended: boolean): void {
	if (words[1]?.raw === "()") {
		markOpaque(state, "function definition", `${words[0]?.raw} ()`);
		return;
	}
	if (opaqueRunners.has(name)) {
		markOpaque(state, "command runner", written(words));
		return;
	}
	if (name === "alias" && words.some((word) => word.value.includes("="))) {
		markOpaque(state, "alias definition", written(words));
		return;
	}
	if (name === "eval" || (name === "trap" && words.length > 2)) {
		const code = name === "eval" ? words.slice(1) : words.slice(1, 2);
		if (inputAppended || !code.every(isLiteral)) {
			markOpaque(state, "eval", written(words));
			return;
		}
		analyzeScript(state, joined(code));
		return;
	}
	const source = codeSource(name, words);
	if (source?.kind === "opaque") {
		// Under xargs a shell's missing script comes from the input: the same opacity.
		markOpaque(state, source.construct, written(words));
		return;
	}
	if (source?.kind === "script") {
		if (inputAppended) {
			markOpaque(state, "command from input", written(words));
			return;
		}
		analyzeScript(state, source.script);
		return;
	}
	if (
		(name === "source" || name === ".") &&
		words[1] &&
		codeSource("sh", [words[0] as ShellWord, words[1]])?.kind !== "file"
	) {
		// `. <(printf 'rm f')`, `source /dev/stdin`: the sourced code comes from a pipe.
		markOpaque(state, "shell reading its input", written(words));
		return;
	}
	if (name === "find") {
		analyzeFindExec(state, words);
		return;
	}
	if (name === "tee") {
		recordTeeTargets(state, words);
		return;
	}
	if (name === "cd" || name === "pushd") recordDirectoryChange(state, words);
}

/** Reads a script (a `bash -c` argument, an `eval`'s words) as a command line of its own. */
function analyzeScript(state: PartState, script: string): void {
	if (state.depth >= MAX_SCRIPT_DEPTH) {
		markOpaque(state, "nesting too deep", script);
		return;
	}
	for (const inner of splitCommand(script, "bash")) {
		state.forms.push(inner);
		const nested: PartState = { ...state, depth: state.depth + 1, forms: state.forms };
		analyzeBashPart(nested, inner);
	}
}

/** `find … -exec cmd {} ;` (also `-execdir`, `-ok`, `-okdir`): each inner command is a command. */
function analyzeFindExec(state: PartState, words: readonly ShellWord[]): void {
	for (let index = 1; index < words.length; index++) {
		if (!/^-(?:exec|execdir|ok|okdir)$/.test((words[index] as ShellWord).value)) continue;
		let end = index + 1;
		while (end < words.length && !/^(?:;|\+)$/.test((words[end] as ShellWord).value)) end++;
		analyzeWords(state, words.slice(index + 1, end), false, "{}");
		index = end;
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

/** PowerShell: only the constructs that run a string as code are recognised; the words are not unwrapped. */
function analyzePowerShellPart(state: PartState, part: string): void {
	const plain = part.replace(/`(.)/g, "$1").replace(/["']/g, "");
	state.forms.push(plain);
	const program = (plain.split(" ")[0] ?? "").toLowerCase();
	if (
		/^(?:iex|invoke-expression|invoke-command|icm|start-process|saps)$/.test(program) ||
		/^[&.]?\$|^[&.]\(/.test(program)
	) {
		markOpaque(state, "expanded command name", program);
	}
	const name = program.slice(program.lastIndexOf("/") + 1).replace(/\.exe$/, "");
	if (name !== program) state.forms.push(`${name}${plain.slice(program.length)}`);
}
