/**
 * Bash builtins the rules cannot see through: those that store code the shell runs later (`trap`,
 * `complete`, `alias x=…`, `hash -p`), run code they are given (`eval`, `source`, `exec`),
 * evaluate variable names that may carry an arithmetic subscript (`declare 'a[$(cmd)]'`), or turn
 * on an option that changes how later commands are read (`set -H`, `shopt -s cdable_vars`).
 */

import type { OpaqueConstructName } from "../opaque-constructs.js";
import { markOpaque, type PartState, written } from "../part-state.js";
import { isLiteral, type ShellWord } from "../shell-words.js";
import { isCodeVariable, MAX_NAME_LENGTH } from "./code-variables.js";
import { changesReading } from "./shell-options.js";

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

/** Builtins that define or run code, or evaluate variable names; false when the part is opaque. */
export function checkBuiltin(state: PartState, name: string, words: readonly ShellWord[]): boolean {
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
		// compgen's -W word list is expanded again as it runs: `compgen -W '$(cmd)'` runs cmd.
		(name === "compgen" && args.some((word) => !isLiteral(word) || /^-\w*[CFXW]/.test(word.value))) ||
		((name === "mapfile" || name === "readarray") && args.some((word) => /^-\w*C/.test(word.value)));
	if (defines) {
		markOpaque(state, "code run later", written(words));
		return false;
	}
	// `jobs -x cmd args` runs `cmd`.
	if (name === "jobs" && args.some((word) => !isLiteral(word) || /^-\w*x/.test(word.value))) {
		markOpaque(state, "command runner", written(words));
		return false;
	}
	if (changesReading(name, words)) {
		markOpaque(state, "shell option", written(words));
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
		// `read OPTIND` assigns what it reads, and so does `read -aRANDOM` (a name attached to its
		// option); unsetting a variable runs nothing.
		// `export "BASH_ENV=x"` assigns as surely as `export BASH_ENV=x`: the name ends at the `=`.
		const assigned = declaration ? word.value.replace(/\+?=.*$/s, "") : word.value;
		const codeName = name !== "unset" && namesCodeVariable(assigned);
		if (!isLiteral(word) || /\[/.test(word.value) || badOption || codeName) {
			markOpaque(state, badOption || codeName ? "code in a variable" : "array subscript", written(words));
			return false;
		}
	}
	return true;
}

/** True when `text` is a code variable's name, or an option with one attached (`-vRANDOM`, `-raOPTIND`). */
function namesCodeVariable(text: string): boolean {
	if (isCodeVariable(text)) return true;
	if (!text.startsWith("-")) return false;
	// Each suffix is a name to judge: bound the work on a long word (such a word is no option cluster).
	if (text.length > MAX_NAME_LENGTH) return true;
	for (let index = 2; index < text.length; index++) if (isCodeVariable(text.slice(index))) return true;
	return false;
}
