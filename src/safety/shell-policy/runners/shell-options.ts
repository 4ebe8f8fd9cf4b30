/**
 * `set` and `shopt` options that change how bash reads or runs the commands after them, which the
 * parser reads as it always does: history expansion (`set -H -o history`, then `!!:1-3` runs the
 * words of an earlier line), `set -k` (an argument `BASH_ENV=…` becomes the command's environment),
 * `shopt -s cdable_vars` (`cd name` goes where `$name` says), aliases, `posix`, compatibility levels.
 * A whitelist: the options known to leave the reading alone pass; turning an option off passes.
 */
import { isLiteral, type ShellWord } from "../shell-words.js";

/** `set` letters that leave the reading alone when turned on (not `H` history expansion, not `k` keyword). */
const harmlessSetLetters = "abBCeEfhmnpPtTuvx";

/** `set -o` names that leave the reading alone when turned on. */
const harmlessSetNames = new Set(
	(
		"allexport braceexpand emacs errexit errtrace functrace hashall ignoreeof interactive-comments monitor " +
		"noclobber noexec noglob nolog notify nounset onecmd physical pipefail privileged verbose vi xtrace"
	).split(" "),
);

/** `shopt` names that leave the reading alone when turned on. */
const harmlessShoptNames = new Set(
	(
		"assoc_expand_once checkhash checkjobs checkwinsize cmdhist direxpand dirspell dotglob extglob extquote " +
		"failglob force_fignore globasciiranges globskipdots globstar gnu_errfmt histappend histreedit histverify " +
		"hostcomplete huponexit inherit_errexit lastpipe lithist localvar_inherit localvar_unset mailwarn " +
		"no_empty_cmd_completion nocaseglob nocasematch noexpand_translation nullglob patsub_replacement progcomp " +
		"progcomp_alias promptvars shift_verbose varredir_close xpg_echo"
	).split(" "),
);

/** True when `set` turns on an option outside the whitelist (or its words cannot be read). */
function setChangesReading(args: readonly ShellWord[]): boolean {
	for (let index = 0; index < args.length; index++) {
		const word = args[index] as ShellWord;
		if (!isLiteral(word)) return true;
		const text = word.value;
		// The rest are positional parameters.
		if (text === "--" || text === "-" || !/^[-+]/.test(text)) return false;
		const enables = text.startsWith("-");
		for (const letter of text.slice(1)) {
			// Each `o` of a cluster takes the next word as an option's name (`set -euo pipefail`).
			if (letter === "o") {
				const name = args[++index];
				if (name === undefined) return false;
				if (enables && (!isLiteral(name) || !harmlessSetNames.has(name.value))) return true;
			} else if (enables && !harmlessSetLetters.includes(letter)) return true;
		}
	}
	return false;
}

/** True when `shopt` turns on an option outside the whitelist (or its words cannot be read). */
function shoptChangesReading(args: readonly ShellWord[]): boolean {
	let enables = false;
	let setNames = false;
	for (const word of args) {
		if (!isLiteral(word)) return true;
		const text = word.value;
		if (/^-[supqo]+$/.test(text)) {
			enables ||= text.includes("s");
			setNames ||= text.includes("o");
			continue;
		}
		if (!enables) continue;
		if (!(setNames ? harmlessSetNames : harmlessShoptNames).has(text)) return true;
	}
	return false;
}

/** True when `words` (`set …` or `shopt …`) turns on an option that changes how later commands are read. */
export function changesReading(name: string, words: readonly ShellWord[]): boolean {
	if (name === "set") return setChangesReading(words.slice(1));
	if (name === "shopt") return shoptChangesReading(words.slice(1));
	return false;
}
