/**
 * The short list of commands default mode runs without asking: programs that only read and print,
 * and only with options known to do nothing else. An option not listed (`sort -o`, `rg --pre`,
 * `tail -f`), an argument that expands (`$x`, a glob), a program reached through a wrapper
 * (`sudo cat`) or a runner: the command is not on the list, and default mode asks as before.
 *
 * A listing or a recursive search (`ls`, `du`, `rg`, `grep -r`) reads below its directories too, so
 * it is judged by every read rule that could match a path there; options that follow symbolic links
 * on the way down (`grep -R`, `rg -L`, `ls -L`, `du -L`) could leave the workspace and are not listed.
 *
 * Left out on purpose: `git` (its config, which a repository may carry, names programs that `git
 * status`, `diff` and `log` run: fsmonitor, diff drivers, textconv), `find` (`-exec`, `-delete`,
 * `-fprint`), `diff` (it compares the files of two directories, and follows their symbolic links),
 * `env`/`printenv` (the environment), interpreters, and anything that writes.
 */
import { isLiteral, literalWord, type ShellWord } from "../shell-words.js";

/** What a read-only program accepts. */
interface ReadOnlyProgram {
	/** Single-letter flags that only change what is printed (they may be bundled: `-la`). */
	flags: string;
	/** Single-letter flags that take a value (`-n 5`, `-n5`); the value is data, not a path. */
	valueFlags?: string;
	/** Single-letter flags whose value is a file it reads (`grep -f FILE`), judged like an operand. */
	pathFlags?: string;
	/** Long options accepted; one ending in `=` takes a value (`--max-count=5`). */
	long?: readonly string[];
	/** What the operands are: paths to read (checked against the workspace), or data (printed). */
	operands: "paths" | "data";
	/** The most operands accepted (`uniq IN OUT` writes OUT: one at most). */
	maxOperands?: number;
	/** It reads below its directory operands: always (`ls`, `du`, `rg`), or with one of these flags (`grep -r`). */
	scans?: true | string;
	/**
	 * A search: its first operand is the pattern unless one of these flags gives it (`grep -e`), and
	 * without a path it reads the working directory. (The pattern is still judged as a path: it may be one.)
	 */
	patternFlags?: string;
}

/** What a read-only invocation reads. */
export interface ReadOnlyReads {
	/** The paths it reads: operands and files named by options; `.` for a program that reads the working directory. */
	paths: ShellWord[];
	/** It reads below the directories among `paths` too (a listing, a recursive search). */
	scansBelow: boolean;
}

const program = (spec: ReadOnlyProgram): ReadOnlyProgram => spec;

/** The programs and their harmless options. Documented in the README ("Read-only commands"). */
const READ_ONLY_PROGRAMS: ReadonlyMap<string, ReadOnlyProgram> = new Map([
	[
		"ls",
		program({
			flags: "1aAbBcCdfFgGhHiklmnNopqQrRsStuUvxXZ",
			long: ["--all", "--almost-all", "--human-readable", "--recursive", "--color", "--color=", "--classify"],
			operands: "paths",
			scans: true,
		}),
	],
	["cat", program({ flags: "AbeEnstTuv", long: ["--number", "--show-all"], operands: "paths" })],
	["head", program({ flags: "qvz", valueFlags: "nc", long: ["--lines=", "--bytes="], operands: "paths" })],
	["tail", program({ flags: "qvz", valueFlags: "nc", long: ["--lines=", "--bytes="], operands: "paths" })],
	["wc", program({ flags: "clmwL", long: ["--lines", "--words", "--bytes", "--chars"], operands: "paths" })],
	[
		"grep",
		program({
			flags: "abcEFGhHiIlLnoPqrsTuvwxyzZ",
			valueFlags: "ABCem",
			pathFlags: "f",
			long: ["--color", "--color=", "--include=", "--exclude=", "--exclude-dir=", "--count", "--line-number"],
			operands: "paths",
			scans: "r",
			patternFlags: "ef",
		}),
	],
	[
		"rg",
		program({
			flags: "cFHiIlnNoqsSuvwxz",
			valueFlags: "ABCegmtT",
			long: ["--files", "--hidden", "--no-ignore", "--glob=", "--type=", "--count", "--line-number", "--fixed-strings"],
			operands: "paths",
			scans: true,
			patternFlags: "e",
		}),
	],
	["stat", program({ flags: "Lt", valueFlags: "c", long: ["--format=", "--printf="], operands: "paths" })],
	["file", program({ flags: "bikLz", operands: "paths" })],
	["du", program({ flags: "abcDhHkmsSx", valueFlags: "d", long: ["--max-depth="], operands: "paths", scans: true })],
	["df", program({ flags: "ahHiklPT", operands: "paths" })],
	["cmp", program({ flags: "bls", operands: "paths", maxOperands: 2 })],
	["sort", program({ flags: "bdfghiMnrRsuVz", valueFlags: "kt", operands: "paths" })],
	["uniq", program({ flags: "cdDiuz", valueFlags: "fsw", operands: "paths", maxOperands: 1 })],
	["cut", program({ flags: "nsz", valueFlags: "bcdf", operands: "paths" })],
	["nl", program({ flags: "p", valueFlags: "bsvw", operands: "paths" })],
	["tac", program({ flags: "br", operands: "paths" })],
	["realpath", program({ flags: "eLmPqsz", operands: "paths" })],
	["readlink", program({ flags: "efmnqsvz", operands: "paths" })],
	["basename", program({ flags: "az", valueFlags: "s", operands: "data" })],
	["dirname", program({ flags: "z", operands: "data" })],
	["echo", program({ flags: "neE", operands: "data" })],
	["pwd", program({ flags: "LP", operands: "data", maxOperands: 0 })],
	["true", program({ flags: "", operands: "data" })],
	["false", program({ flags: "", operands: "data" })],
	["whoami", program({ flags: "", operands: "data", maxOperands: 0 })],
	["id", program({ flags: "gGnruz", operands: "data", maxOperands: 1 })],
	["uname", program({ flags: "amnoprsvi", operands: "data", maxOperands: 0 })],
	["which", program({ flags: "a", operands: "data" })],
	["tr", program({ flags: "cCdst", operands: "data", maxOperands: 2 })],
]);

/** An accepted option: how many words it takes, and the letters and file it gave. */
interface AcceptedOption {
	/** The option's words: 1, or 2 when its value is the next word. */
	consumed: number;
	/** The single letters it set (`-rn` sets `r` and `n`). */
	letters: string;
	/** The file a path flag names (`grep -f FILE`). */
	path?: ShellWord;
}

/** The option `word` when the program accepts it (with the value it takes), else undefined. */
function acceptedOption(spec: ReadOnlyProgram, word: string, next: ShellWord | undefined): AcceptedOption | undefined {
	if (word.startsWith("--")) {
		const [name, value] = word.includes("=") ? [`${word.slice(0, word.indexOf("=") + 1)}`, true] : [word, false];
		return spec.long?.includes(name) && (value || !name.endsWith("=")) ? { consumed: 1, letters: "" } : undefined;
	}
	for (let index = 1; index < word.length; index++) {
		const letter = word[index] as string;
		const letters = word.slice(1, index + 1);
		const isPath = spec.pathFlags?.includes(letter) === true;
		if (spec.valueFlags?.includes(letter) || isPath) {
			// The value is attached (`-n5`) or the next word.
			if (index < word.length - 1) {
				const attached = literalWord(word.slice(index + 1));
				return isPath ? { consumed: 1, letters, path: attached } : { consumed: 1, letters };
			}
			if (!next || !isLiteral(next)) return undefined;
			return isPath ? { consumed: 2, letters, path: next } : { consumed: 2, letters };
		}
		if (!spec.flags.includes(letter)) return undefined;
	}
	return { consumed: 1, letters: word.slice(1) };
}

/**
 * When `words` (a simple command's name and arguments, all literal) is a read-only invocation on
 * the list, what it reads (no paths for programs whose operands are data); otherwise undefined.
 * A `-` operand (standard input) and operands after `--` count as operands.
 */
export function readOnlyInvocation(name: string, words: readonly ShellWord[]): ReadOnlyReads | undefined {
	const spec = READ_ONLY_PROGRAMS.get(name);
	if (!spec || !words.every(isLiteral) || words.some((word) => word.tilde)) return undefined;
	const operands: ShellWord[] = [];
	const optionPaths: ShellWord[] = [];
	let letters = "";
	let options = true;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		if (options && word.value === "--") {
			options = false;
			continue;
		}
		if (options && word.value.startsWith("-") && word.value !== "-") {
			const option = acceptedOption(spec, word.value, words[index + 1]);
			if (option === undefined) return undefined;
			letters += option.letters;
			if (option.path) optionPaths.push(option.path);
			index += option.consumed - 1;
			continue;
		}
		operands.push(word);
	}
	if (spec.maxOperands !== undefined && operands.length > spec.maxOperands) return undefined;
	const scansBelow =
		spec.scans === true || (spec.scans !== undefined && [...spec.scans].some((flag) => letters.includes(flag)));
	if (spec.operands === "data") return { paths: [], scansBelow };
	const paths = [...operands, ...optionPaths].filter((word) => word.value !== "-");
	const patternGiven = [...(spec.patternFlags ?? "")].some((flag) => letters.includes(flag));
	const files = spec.patternFlags !== undefined && !patternGiven ? operands.length - 1 : operands.length;
	// Without a path, a listing or a search reads the working directory.
	if (files <= 0 && (spec.scans !== undefined || spec.patternFlags !== undefined)) paths.push(literalWord("."));
	return { paths, scansBelow };
}
