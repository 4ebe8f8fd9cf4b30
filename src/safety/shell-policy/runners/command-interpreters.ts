/**
 * Shells and language interpreters: which code an invocation runs. A literal `bash -c '…'`
 * script can be read and checked; inline code of another language (`python -c`), a script
 * held in a variable, or a program read from a pipe, a heredoc or a here-string cannot.
 */
import { posix } from "node:path";
import { isLiteral, type ShellWord } from "../shell-words.js";

/** Shells whose `-c` script is a command line in the same syntax. */
const shellPrograms = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh"]);

/** Short options of a shell that take a value in the next word. */
const shellValueOptions = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/** How an interpreter is given code inline, and which of its options take a value. */
interface InterpreterSpec {
	/** Options that run the code in their value or in the next operand (`-c`, `-e`, `--eval`). */
	inline: readonly string[];
	/** Letters that mean inline code inside a cluster of short options (`perl -ne`). */
	inlineLetters?: string;
	/** Options with a value in the next word. */
	values?: readonly string[];
	/** Options that run a named module or subcommand instead of a file (`python -m`), so input is not read. */
	programs?: readonly string[];
	/** Subcommands that evaluate their argument as code (`deno eval`). */
	evalCommands?: readonly string[];
}

const interpreterSpecs: Readonly<Record<string, InterpreterSpec>> = {
	python: { inline: ["-c"], values: ["-W", "-X", "--check-hash-based-pycs"], programs: ["-m"] },
	node: {
		inline: ["-e", "-p", "--eval", "--print", "-pe"],
		values: ["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type"],
	},
	bun: { inline: ["-e", "--eval", "-p", "--print"], evalCommands: ["eval"] },
	deno: { inline: ["--eval"], evalCommands: ["eval", "repl"] },
	perl: { inline: ["-e", "-E"], inlineLetters: "eE", values: ["-I", "-M", "-m", "-x"] },
	ruby: { inline: ["-e"], inlineLetters: "e", values: ["-I", "-r", "-C", "-E"] },
	php: { inline: ["-r", "-R", "-B", "-E", "-a"], values: ["-c", "-d", "-z", "-t"] },
	lua: { inline: ["-e"], values: ["-l"] },
	rscript: { inline: ["-e"] },
	osascript: { inline: ["-e"] },
	tclsh: { inline: [] },
};

/**
 * PowerShell's own options that take a value. It accepts `-`, `--` and `/` before an option and
 * any unambiguous prefix of its name, so options are compared by prefix.
 */
const pwshValueOptions = [
	"executionpolicy",
	"ep",
	"workingdirectory",
	"wd",
	"settingsfile",
	"configurationname",
	"configurationfile",
	"outputformat",
	"inputformat",
	"windowstyle",
	"version",
	"psconsolefile",
	"custompipename",
];

/**
 * Reads a PowerShell invocation: `-Command`, `-EncodedCommand`, `-CommandWithArgs` and every
 * abbreviation (`-c`, `-co`, `-e`, `-enc`, `/c`, `--command`) run inline code; so does a first
 * operand under Windows PowerShell (`powershell rm x`), while pwsh takes it as a script file.
 */
function pwshSource(name: string, words: readonly ShellWord[]): CodeSource {
	const inline: CodeSource = { kind: "opaque", construct: "interpreter with inline code" };
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		if (!isLiteral(word)) return inline;
		const option = /^(?:--?|\/)([a-z]\w*)(?::.*)?$/i.exec(word.value)?.[1]?.toLowerCase();
		if (option === undefined) {
			if (name === "powershell" || readsInput(word)) return inline;
			return { kind: "file" };
		}
		if (option === "ec" || option === "e" || option === "cwa") return inline;
		if ("command".startsWith(option) || ["encodedcommand", "commandwithargs"].some((full) => full.startsWith(option)))
			return inline;
		if ("file".startsWith(option)) return { kind: "file" };
		if (!word.value.includes(":") && pwshValueOptions.some((full) => full.startsWith(option) && option.length > 1))
			index++;
	}
	if (words.some((word) => /^-(?:-?version|v|help|\?)$/i.test(word.value))) return { kind: "file" };
	return { kind: "opaque", construct: "shell reading its input" };
}

const interpreterInitials = new Set([..."pnbdlrotw"].map((letter) => letter.charCodeAt(0)));

/** The interpreter family of a program name (`python3.12` → `python`), if it is one. */
function interpreterName(name: string): string | undefined {
	// Every interpreter's name starts with one of these letters: most programs are rejected here.
	if (!interpreterInitials.has(name.charCodeAt(0) | 0x20)) return undefined;
	const lower = name.toLowerCase();
	if (/^(?:python|pypy)[0-9.]*$/.test(lower)) return "python";
	if (lower === "nodejs") return "node";
	if (lower === "luajit" || /^lua[0-9.]*$/.test(lower)) return "lua";
	if (lower === "powershell" || lower === "pwsh") return lower;
	if (lower === "wish") return "tclsh";
	return Object.hasOwn(interpreterSpecs, lower) ? lower : undefined;
}

/** True for a program that runs code: a shell or an interpreter. */
export function isCodeRunner(name: string): boolean {
	return shellPrograms.has(name) || interpreterName(name) !== undefined;
}

/**
 * Options after which a shell or interpreter without a script reads no code from its input.
 * Only long ones: a short `-v` is "verbose" to bash and python, which then read their input.
 */
const informationOptions = new Set(["--version", "--help", "--test"]);

/** An operand that names the program's input rather than a file (`-`, `/dev/stdin`), or is not known before it runs. */
function readsInput(word: ShellWord): boolean {
	if (!isLiteral(word)) return true;
	// Every spelling of a descriptor or a device (`/dev//stdin`, `/proc/self/fd/0`, `/dev/fd/3`) reads a pipe or a terminal.
	const path = posix.normalize(word.value);
	return word.value === "-" || /^\/+(?:dev|proc)\//.test(path);
}

/** What a shell or interpreter invocation runs. */
export type CodeSource =
	/** A shell's `-c` script, literal: its commands can be checked. */
	| { kind: "script"; script: string }
	/** A script file or module: the program is the file, as for any other program. */
	| { kind: "file" }
	/** Code the rules cannot read. */
	| {
			kind: "opaque";
			construct: "shell reading its input" | "script from a variable" | "interpreter with inline code";
	  };

/** Reads a shell invocation (`bash -ec 'a; b'`, `sh script.sh`, `sh` alone). `words[0]` is the shell. */
function shellSource(words: readonly ShellWord[]): CodeSource {
	let inline = false;
	let index = 1;
	for (; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) break;
		if (text === "--" || text === "-") {
			if (text === "--") index++;
			break;
		}
		if (!/^[-+]/.test(text)) break;
		if (shellValueOptions.has(text)) {
			index++;
			continue;
		}
		if (text.startsWith("--")) continue;
		if (text.slice(1).includes("c")) inline = true;
		if (text.slice(1).includes("s") && !text.startsWith("+"))
			return { kind: "opaque", construct: "shell reading its input" };
	}
	const operand = words[index];
	if (!operand && words.some((word) => informationOptions.has(word.value))) return { kind: "file" };
	if (inline) {
		if (!operand) return { kind: "opaque", construct: "shell reading its input" };
		if (operand.expands) return { kind: "opaque", construct: "script from a variable" };
		return { kind: "script", script: operand.value };
	}
	if (!operand || readsInput(operand)) return { kind: "opaque", construct: "shell reading its input" };
	return { kind: "file" };
}

/** Reads an interpreter invocation (`python3 -c …`, `node -e …`, `perl x.pl`). */
function interpreterSource(spec: InterpreterSpec, words: readonly ShellWord[]): CodeSource {
	const inline: CodeSource = { kind: "opaque", construct: "interpreter with inline code" };
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value.toLowerCase();
		if (index === 1 && spec.evalCommands?.includes(text)) return inline;
		if (spec.inline.some((option) => text === option || text.startsWith(`${option}=`))) return inline;
		if (spec.programs?.includes(text)) return { kind: "file" };
		if (spec.values?.includes(text)) {
			index++;
			continue;
		}
		if (text === "--") {
			const operand = words[index + 1];
			return !operand || readsInput(operand)
				? { kind: "opaque", construct: "shell reading its input" }
				: { kind: "file" };
		}
		if (text.startsWith("-") && text !== "-") {
			const letters = spec.inlineLetters;
			if (letters && !text.startsWith("--") && [...text.slice(1)].some((letter) => letters.includes(letter))) {
				return inline;
			}
			continue;
		}
		return readsInput(word) ? { kind: "opaque", construct: "shell reading its input" } : { kind: "file" };
	}
	if (words.some((word) => informationOptions.has(word.value))) return { kind: "file" };
	return { kind: "opaque", construct: "shell reading its input" };
}

/**
 * An awk program that runs commands (`system()`, a pipe to or from a command), writes files
 * (`print > "f"`, `printf … >> "f"`) or loads a library (gawk's `@load`, `-l`). The program may be
 * the first operand or an option's value (gawk's `-e`, `--source=…`, attached or not), so every
 * word is read, and a word whose value is not known (`awk "$prog"`) may be any program. A
 * program file (`-f`) is a file, like a script.
 */
function awkRunsCommands(words: readonly ShellWord[]): boolean {
	return words
		.slice(1)
		.some(
			(word) =>
				!isLiteral(word) ||
				/^-(?:l|-lo)/.test(word.value) ||
				/system\s*\(|\||@load|\bprintf?\b[^;{}\n]*>/.test(word.value),
		);
}

/**
 * What the code runner `name` (a shell, an interpreter, or awk) runs with these words, or
 * undefined when it is not one.
 */
export function codeSource(name: string, words: readonly ShellWord[]): CodeSource | undefined {
	if (shellPrograms.has(name)) return shellSource(words);
	if (/^[gmn]?awk$/.test(name)) {
		return awkRunsCommands(words) ? { kind: "opaque", construct: "interpreter with inline code" } : { kind: "file" };
	}
	const family = interpreterName(name);
	if (family === undefined) return undefined;
	if (family === "pwsh" || family === "powershell") return pwshSource(family, words);
	return interpreterSource(interpreterSpecs[family] as InterpreterSpec, words);
}
