/** `git`: configuration and aliases that run programs, options that write. */

import { isLiteral, type ShellWord } from "../shell-words.js";
import { recordNewRepository } from "./git-new-repository.js";
import { isLongOption, longValue, markRunner, type ProgramEffects } from "./option-readers.js";

/** git's own commands: any other name may be an alias, which may run a program (`!cmd`). */
const gitCommands = new Set(
	(
		"add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore checkout cherry " +
		"cherry-pick clean clone commit commit-tree config count-objects describe diff diff-files diff-index diff-tree " +
		"fetch for-each-ref format-patch fsck gc grep hash-object help init log ls-files ls-remote ls-tree merge " +
		"merge-base mv name-rev notes prune pull push range-diff read-tree rebase reflog remote repack reset restore " +
		"rev-list rev-parse revert rm shortlog show show-branch show-ref sparse-checkout stash status switch " +
		"symbolic-ref tag update-index update-ref var verify-commit version whatchanged worktree stage"
	).split(" "),
);

/** git options (global or of a command) that run a program. */
const gitRunLong = ["upload-pack", "receive-pack", "exec", "ext-diff", "extcmd", "tool", "exec-path", "config-env"];

/** Options whose value is data, so that `git commit -m "$msg"` is not taken for an unknown option. */
const gitValueOptions =
	/^(?:-[mbBFnt]|--(?:message|author|date|since|until|after|before|grep|format|pretty|max-count|branch))$/;

/**
 * `--git-dir` and `--bare` choose the repository, and with it the config git reads (as `GIT_DIR`
 * does): a folder the command line made can name any program (`core.fsmonitor`, `diff.external`).
 * git reads its global options by their exact names only.
 */
function choosesRepository(option: string): boolean {
	return option === "--bare" || option === "--git-dir" || option.startsWith("--git-dir=");
}

/**
 * Options of `clone` and `init` that put programs into the new repository or run one: a template
 * folder's hooks (`post-checkout` runs during the clone), config set with `-c` (its `core.fsmonitor`
 * runs at the next status), and clone's `-u` (its upload-pack command runs through a shell).
 */
function runsThroughNewRepository(command: string, option: string): boolean {
	if (command !== "clone" && command !== "init") return false;
	if (isLongOption(option, ["template"])) return true;
	return command === "clone" && (isLongOption(option, ["config"]) || /^-[a-zA-Z]*[cu]/.test(option));
}

/** `git`: `-c` and unknown commands (aliases) run programs; `--output` and `-o` write, from `-C`'s folder. */
export function readGit(words: readonly ShellWord[], effects: ProgramEffects): void {
	let index = 1;
	for (; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (
			!isLiteral(word) ||
			text === "-c" ||
			text.startsWith("--config-env") ||
			isLongOption(text, gitRunLong) ||
			choosesRepository(text)
		) {
			markRunner(effects, words);
			return;
		}
		if (text === "-C") {
			const directory = words[index + 1];
			if (directory) effects.directories.push(directory);
			index++;
		} else if (text === "--git-dir" || text === "--work-tree" || text === "--namespace") index++;
		else if (!text.startsWith("-")) break;
	}
	const command = words[index]?.value;
	if (command === undefined) return;
	if (!gitCommands.has(command)) {
		markRunner(effects, words);
		return;
	}
	const rest = words.slice(index + 1);
	if (["difftool", "mergetool", "filter-branch", "submodule"].includes(command)) markRunner(effects, words);
	if (command === "config" && !rest.some((word) => /^(?:--get|--list|-l$|--show)/.test(word.value)))
		markRunner(effects, words);
	if (command === "bisect" && rest[0]?.value === "run") markRunner(effects, words);
	recordNewRepository(command, rest, effects);
	for (let at = 0; at < rest.length; at++) {
		const word = rest[at] as ShellWord;
		const text = word.value;
		if (gitValueOptions.test(text)) {
			at++;
			continue;
		}
		if (!isLiteral(word)) {
			markRunner(effects, words);
			effects.writes.push({ word, via: `git ${command}` });
			continue;
		}
		if (text === "--" && command !== "bisect") break;
		if (isLongOption(text, gitRunLong) || /^-(?:x|-exec)$/.test(text) || text.startsWith("--exec=")) {
			markRunner(effects, words);
		}
		if (/^-(?:[a-zA-Z]*O|-open-files-in-pager)/.test(text) && command === "grep") markRunner(effects, words);
		if (runsThroughNewRepository(command, text)) markRunner(effects, words);
		if (isLongOption(text, ["output", "output-directory"]) || (text === "-o" && command !== "grep")) {
			const { value, taken } = longValue(rest, at);
			if (value) effects.writes.push({ word: value, via: `git ${command} ${text.split("=")[0]}` });
			at += taken;
		}
	}
}
