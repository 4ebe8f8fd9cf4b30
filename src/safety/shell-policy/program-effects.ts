/**
 * Programs whose options or input make them run other programs or write files: `find -exec`,
 * `sed 'e'`, `tar --checkpoint-action`, `git -c`, `sort -o`, `git diff --output`… An allow rule
 * for such a program (`bash(find:*)`) allows what the user read, never the program it runs or the
 * file it writes: the commands it names must be allowed themselves, a program it could run that
 * is not named literally makes it a runner (it matches every deny and ask rule, and only an allow
 * rule for the whole tool allows it), and the files it writes are judged like redirections.
 */
import { readSedScript } from "./sed-script.js";
import { isLiteral, literalWord, type ShellWord } from "./shell-words.js";

/** What a program does besides its own work, as far as its arguments tell. */
export interface ProgramEffects {
	/** Commands it runs, named literally in its arguments (`find -exec rm {} ;`, `npx eslint`). */
	runs: ShellWord[][];
	/** Literal shell scripts it runs (`npm exec -c 'a && b'`). */
	scripts: string[];
	/** Set when it could run a program that is not named literally: the words that say so. */
	runner?: string;
	/** Files it writes through its options or script. */
	writes: { word: ShellWord; via: string }[];
}

type Reader = (words: readonly ShellWord[], effects: ProgramEffects) => void;

function markRunner(effects: ProgramEffects, words: readonly ShellWord[]): void {
	effects.runner ??= words.map((word) => word.raw).join(" ");
}

/** True when `option` (`--out=x`, `--out`) is one of `names` or a GNU-style abbreviation of one. */
function isLongOption(option: string, names: readonly string[]): boolean {
	if (!option.startsWith("--") || option.length < 4) return false;
	const name = option.slice(2).split("=")[0] as string;
	return names.some((candidate) => candidate === name || (name.length >= 2 && candidate.startsWith(name)));
}

/** The value of `--name=value`, or of the next word; and how many words it took. */
function longValue(words: readonly ShellWord[], index: number): { value?: ShellWord; taken: number } {
	const word = words[index] as ShellWord;
	const equals = word.value.indexOf("=");
	if (equals !== -1) {
		const value = word.value.slice(equals + 1);
		return { value: { ...word, raw: value, value }, taken: 0 };
	}
	const next = words[index + 1];
	return next ? { value: next, taken: 1 } : { taken: 0 };
}

/** A short option's value: attached (`-ofile`) or the next word. */
function shortValue(words: readonly ShellWord[], index: number, at: number): { value?: ShellWord; taken: number } {
	const word = words[index] as ShellWord;
	const rest = word.value.slice(at + 1);
	if (rest !== "") return { value: { ...word, raw: rest, value: rest }, taken: 0 };
	const next = words[index + 1];
	return next ? { value: next, taken: 1 } : { taken: 0 };
}

/** Option syntax of a plain GNU-style program with writing and running options. */
interface OptionSpec {
	/** Short options whose value is a file the program writes. */
	writeShort?: string;
	/** Long options whose value is a file the program writes. */
	writeLong?: readonly string[];
	/** Short options that make it run a program (with or without a value). */
	runShort?: string;
	/** Long options that make it run a program. */
	runLong?: readonly string[];
	/** Short options whose value is data (so that it is not read as options). */
	valueShort?: string;
}

/** Reads options by `spec`; an expanded word where an option may stand could be any option. */
function readOptions(spec: OptionSpec, via: string): Reader {
	return (words, effects) => {
		for (let index = 1; index < words.length; index++) {
			const word = words[index] as ShellWord;
			const text = word.value;
			if (text === "--") return;
			if (!isLiteral(word)) {
				if (spec.runShort || spec.runLong) markRunner(effects, words);
				if (spec.writeShort || spec.writeLong) effects.writes.push({ word, via });
				continue;
			}
			if (!text.startsWith("-") || text === "-") continue;
			if (text.startsWith("--")) {
				if (spec.runLong && isLongOption(text, spec.runLong)) markRunner(effects, words);
				if (spec.writeLong && isLongOption(text, spec.writeLong)) {
					const { value, taken } = longValue(words, index);
					if (value) effects.writes.push({ word: value, via });
					index += taken;
				}
				continue;
			}
			for (let at = 1; at < text.length; at++) {
				const letter = text[at] as string;
				if (spec.runShort?.includes(letter)) markRunner(effects, words);
				if (spec.writeShort?.includes(letter)) {
					const { value, taken } = shortValue(words, index, at);
					if (value) effects.writes.push({ word: value, via });
					index += taken;
					break;
				}
				if (spec.valueShort?.includes(letter)) {
					index += shortValue(words, index, at).taken;
					break;
				}
			}
		}
	};
}

/** Programs that, whatever their arguments, may run any program (debuggers, remote shells). */
const alwaysRunners = new Set(["gdb", "lldb", "ssh", "mosh", "expect", "emacs", "emacsclient"]);

const readers: Readonly<Record<string, Reader>> = {
	sort: readOptions(
		{ writeShort: "o", writeLong: ["output"], runLong: ["compress-program"], valueShort: "kStT" },
		"sort -o",
	),
	curl: readOptions(
		{
			writeShort: "oDc",
			writeLong: ["output", "dump-header", "cookie-jar", "trace", "trace-ascii", "stderr", "etag-save", "libcurl"],
			runShort: "OK",
			runLong: ["remote-name", "remote-name-all", "output-dir", "config"],
			valueShort: "HdXuAeFbrwTEm",
		},
		"curl --output",
	),
	wget: readOptions(
		{
			writeShort: "Ooa",
			writeLong: ["output-document", "output-file", "append-output"],
			runShort: "Pe",
			runLong: ["directory-prefix", "execute", "use-askpass"],
			valueShort: "UtTwi",
		},
		"wget --output-document",
	),
	cc: readOptions({ writeShort: "o", valueShort: "IDULx" }, "-o"),
	scp: readOptions({ runShort: "SoF", valueShort: "iPlcJ" }, "scp"),
	rsync: readOptions(
		{ runShort: "eF", runLong: ["rsh", "rsync-path", "filter", "include-from", "files-from"] },
		"rsync",
	),
	man: readOptions({ runShort: "PH", runLong: ["pager", "html", "preprocessor"] }, "man"),
	sed: readSed,
	find: readFind,
	tar: readTar,
	git: readGit,
	npm: readNpm,
	npx: (words, effects) => readPackageExec(words, 1, effects),
	make: readMake,
	dd: (words, effects) => {
		for (const word of words.slice(1)) {
			if (!isLiteral(word)) markRunner(effects, words);
			else if (word.value.startsWith("of="))
				effects.writes.push({ word: literalWord(word.value.slice(3)), via: "dd of=" });
		}
	},
};

for (const name of ["gcc", "g++", "clang", "clang++", "c++", "tcc"])
	(readers as Record<string, Reader>)[name] = readers.cc as Reader;

/** Editors whose options or `+` arguments run editor commands, and through them any program. */
function readEditor(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		const text = word.value;
		if (!isLiteral(word) || text.startsWith("+") || /^-(?:c|S|s|u|-cmd)$|^--cmd|^-[a-zA-Z]*[cSsu]$/.test(text))
			markRunner(effects, words);
	}
}

/** Pagers run commands from `+` initial commands and their key file. */
function readPager(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		if (!isLiteral(word) || word.value.startsWith("+") || /^--lesskey|^-k/.test(word.value)) markRunner(effects, words);
	}
}

/** `sed`: `-i` writes its files, the script's `w` writes and its `e` runs; `-f` reads a script file. */
function readSed(words: readonly ShellWord[], effects: ProgramEffects): void {
	const scripts: ShellWord[] = [];
	const operands: ShellWord[] = [];
	let inPlace = false;
	let sandbox = false;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			// An expansion or a glob may become `-e 'e cmd'` or `--in-place` (file names can start with `-`).
			markRunner(effects, words);
			operands.push(word);
			continue;
		}
		if (text === "--sandbox") sandbox = true;
		else if (text === "-e" || text === "--expression") {
			const script = words[++index];
			if (script) scripts.push(script);
		} else if (text.startsWith("--expression=")) scripts.push(literalWord(text.slice(13)));
		else if (text === "-f" || text.startsWith("--file") || /^-[a-zA-Z]*f/.test(text)) markRunner(effects, words);
		else if (text.startsWith("--in-place") || /^-[nrEsuz]*i/.test(text)) inPlace = true;
		else if (/^-[a-zA-Z]*e$/.test(text)) {
			inPlace ||= /^-[a-zA-Z]*i/.test(text);
			const script = words[++index];
			if (script) scripts.push(script);
		} else if (text === "-l" || text === "--line-length") index++;
		else if (text.startsWith("-") && text !== "-") continue;
		else operands.push(word);
	}
	if (scripts.length === 0 && operands.length > 0) scripts.push(operands.shift() as ShellWord);
	for (const script of scripts) {
		if (!isLiteral(script)) {
			markRunner(effects, words);
			continue;
		}
		const read = readSedScript(script.value);
		if (read.runs && !sandbox) markRunner(effects, words);
		if (!sandbox) for (const path of read.writes) effects.writes.push({ word: literalWord(path), via: "sed w" });
	}
	if (inPlace) for (const operand of operands) effects.writes.push({ word: operand, via: "sed -i" });
}

/** `find`: `-exec`-like actions run a command, `-fprint*`/`-fls` write, `-delete` removes below its starting points. */
function readFind(words: readonly ShellWord[], effects: ProgramEffects): void {
	const starts: ShellWord[] = [];
	let expression = false;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word) && word.expands) {
			// `find "$x"` may be `-exec …` or `-delete`: any action.
			markRunner(effects, words);
			effects.writes.push({ word, via: "find" });
			continue;
		}
		if (!expression && !/^[-(!]/.test(text)) {
			starts.push(word);
			continue;
		}
		expression = true;
		if (/^-(?:exec|execdir|ok|okdir)$/.test(text)) {
			let end = index + 1;
			while (end < words.length && !/^(?:;|\+)$/.test((words[end] as ShellWord).value)) end++;
			const inner = words.slice(index + 1, end);
			if (inner[0]?.value.includes("{}")) markRunner(effects, words);
			else effects.runs.push(inner);
			index = end;
		} else if (/^-(?:fprint|fprint0|fprintf|fls)$/.test(text)) {
			const target = words[index + 1];
			if (target) effects.writes.push({ word: target, via: text });
			index += text === "-fprintf" ? 2 : 1;
		} else if (text === "-delete") {
			for (const start of starts.length > 0 ? starts : [literalWord(".")])
				effects.writes.push({ word: start, via: "find -delete" });
		}
	}
}

/** GNU tar options that run a program (`--checkpoint-action=exec=…`, `-I prog`, `--to-command`). */
const tarRunLong = [
	"checkpoint-action",
	"to-command",
	"use-compress-program",
	"info-script",
	"new-volume-script",
	"rsh-command",
	"rmt-command",
];

/** `tar`: options that run programs; `x` writes below `-C` (or here), `c`/`r`/`u` write the archive. */
function readTar(words: readonly ShellWord[], effects: ProgramEffects): void {
	let extract = false;
	let directory: ShellWord = literalWord(".");
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			markRunner(effects, words);
			continue;
		}
		if (text.startsWith("--")) {
			if (isLongOption(text, tarRunLong)) markRunner(effects, words);
			if (isLongOption(text, ["extract", "get"])) extract = true;
			if (isLongOption(text, ["absolute-names"])) markRunner(effects, words);
			if (isLongOption(text, ["directory"])) {
				const { value, taken } = longValue(words, index);
				if (value) directory = value;
				index += taken;
			}
			continue;
		}
		// The first word may be a bundle of letters without a dash (`tar xzf a.tar`).
		const letters = text.startsWith("-") ? text.slice(1) : index === 1 ? text : "";
		if (/[IFP]/.test(letters)) markRunner(effects, words);
		if (letters.includes("x")) extract = true;
		if (text === "-C") {
			const value = words[index + 1];
			if (value) directory = value;
			index++;
		}
	}
	if (extract) effects.writes.push({ word: directory, via: "tar -x" });
}

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

/** `git`: `-c` and unknown commands (aliases) run programs; `--output` and `-o` write. */
function readGit(words: readonly ShellWord[], effects: ProgramEffects): void {
	let index = 1;
	for (; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word) || text === "-c" || text.startsWith("--config-env") || isLongOption(text, gitRunLong)) {
			markRunner(effects, words);
			return;
		}
		if (text === "-C" || text === "--git-dir" || text === "--work-tree" || text === "--namespace") index++;
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
		if (isLongOption(text, ["output", "output-directory"]) || (text === "-o" && command !== "grep")) {
			const { value, taken } = longValue(rest, at);
			if (value) effects.writes.push({ word: value, via: `git ${command} ${text.split("=")[0]}` });
			at += taken;
		}
	}
}

/** `npm exec`/`npx`: the named package's program runs; `-c` runs a shell script. */
function readPackageExec(words: readonly ShellWord[], start: number, effects: ProgramEffects): void {
	for (let index = start; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			markRunner(effects, words);
			return;
		}
		if (text === "--") {
			if (words[index + 1]) effects.runs.push(words.slice(index + 1));
			return;
		}
		if (text === "-c" || text === "--call" || text.startsWith("--call=")) {
			const script = text.startsWith("--call=") ? literalWord(text.slice(7)) : words[index + 1];
			if (script && isLiteral(script)) effects.scripts.push(script.value);
			else markRunner(effects, words);
			return;
		}
		if (/^(?:-p|--package)$/.test(text)) {
			index++;
			continue;
		}
		if (text.startsWith("-")) continue;
		effects.runs.push(words.slice(index));
		return;
	}
}

/** `npm exec`, `npm x` run a program; `--script-shell` runs any program for `npm run`. */
function readNpm(words: readonly ShellWord[], effects: ProgramEffects): void {
	const command = words.findIndex((word, index) => index > 0 && !word.value.startsWith("-"));
	if (words.some((word) => !isLiteral(word) && word.value.startsWith("-"))) markRunner(effects, words);
	if (words.some((word) => isLongOption(word.value, ["script-shell", "node-options"]))) markRunner(effects, words);
	if (command !== -1 && ["exec", "x"].includes((words[command] as ShellWord).value)) {
		readPackageExec(words, command + 1, effects);
	}
}

/** `make --eval` and a shell override run code the rules cannot read; a Makefile is a file, like a script. */
function readMake(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		if (
			!isLiteral(word) ||
			/^(?:--eval|-E$|SHELL=|\.SHELLFLAGS=|MAKEFLAGS=|-f-?$|--file=-|--makefile=-)/.test(word.value)
		)
			markRunner(effects, words);
	}
}

/** The effects of running `words` (`words[0]` is the program, by its name without a path), or undefined for an ordinary program. */
export function programEffects(name: string, words: readonly ShellWord[]): ProgramEffects | undefined {
	const effects: ProgramEffects = { runs: [], scripts: [], writes: [] };
	if (alwaysRunners.has(name)) markRunner(effects, words);
	else if (/^(?:vim?|nvim|ex|view|rvim|gvim)$/.test(name)) readEditor(words, effects);
	else if (/^(?:less|more|most)$/.test(name)) readPager(words, effects);
	else {
		const reader = Object.hasOwn(readers, name) ? readers[name] : undefined;
		if (!reader) return undefined;
		reader(words, effects);
	}
	return effects;
}
