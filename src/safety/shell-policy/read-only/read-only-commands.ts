/**
 * The short list of commands default mode runs without asking: programs that only read and print,
 * and only with options known to do nothing else. An option not listed (`sort -o`, `rg --pre`,
 * `tail -f`), an argument that expands (`$x`, a glob), a program reached through a wrapper
 * (`sudo cat`) or a runner: the command is not on the list, and default mode asks as before.
 *
 * Left out on purpose: `git` (its config, which a repository may carry, names programs that `git
 * status`, `diff` and `log` run: fsmonitor, diff drivers, textconv), `find` (`-exec`, `-delete`,
 * `-fprint`), `env`/`printenv` (the environment), interpreters, and anything that writes.
 */
import { isLiteral, type ShellWord } from "../shell-words.js";

/** What a read-only program accepts. */
interface ReadOnlyProgram {
	/** Single-letter flags that only change what is printed (they may be bundled: `-la`). */
	flags: string;
	/** Single-letter flags that take a value (`-n 5`, `-n5`); the value is data, not a path. */
	valueFlags?: string;
	/** Long options accepted; one ending in `=` takes a value (`--max-count=5`). */
	long?: readonly string[];
	/** What the operands are: paths to read (checked against the workspace), or data (printed). */
	operands: "paths" | "data";
	/** The most operands accepted (`uniq IN OUT` writes OUT: one at most). */
	maxOperands?: number;
}

const program = (spec: ReadOnlyProgram): ReadOnlyProgram => spec;

/** The programs and their harmless options. Documented in the README ("Read-only commands"). */
const READ_ONLY_PROGRAMS: ReadonlyMap<string, ReadOnlyProgram> = new Map([
	[
		"ls",
		program({
			flags: "1aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ",
			long: ["--all", "--almost-all", "--human-readable", "--recursive", "--color", "--color=", "--classify"],
			operands: "paths",
		}),
	],
	["cat", program({ flags: "AbeEnstTuv", long: ["--number", "--show-all"], operands: "paths" })],
	["head", program({ flags: "qvz", valueFlags: "nc", long: ["--lines=", "--bytes="], operands: "paths" })],
	["tail", program({ flags: "qvz", valueFlags: "nc", long: ["--lines=", "--bytes="], operands: "paths" })],
	["wc", program({ flags: "clmwL", long: ["--lines", "--words", "--bytes", "--chars"], operands: "paths" })],
	[
		"grep",
		program({
			flags: "abcEFGhHiIlLnoPqrRsTuvwxyzZ",
			valueFlags: "ABCefm",
			long: ["--color", "--color=", "--include=", "--exclude=", "--exclude-dir=", "--count", "--line-number"],
			operands: "paths",
		}),
	],
	[
		"rg",
		program({
			flags: "cFHiIlLnNoqsSuvwxz",
			valueFlags: "ABCegmtT",
			long: ["--files", "--hidden", "--no-ignore", "--glob=", "--type=", "--count", "--line-number", "--fixed-strings"],
			operands: "paths",
		}),
	],
	["stat", program({ flags: "Lt", valueFlags: "c", long: ["--format=", "--printf="], operands: "paths" })],
	["file", program({ flags: "bikLz", operands: "paths" })],
	["du", program({ flags: "abcDhHkLmsSx", valueFlags: "d", long: ["--max-depth="], operands: "paths" })],
	["df", program({ flags: "ahHiklPT", operands: "paths" })],
	["diff", program({ flags: "abBdEiNpqrstTuwy", valueFlags: "U", long: ["--brief", "--unified="], operands: "paths" })],
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

/** True when `word` is an option the program accepts (with the value it takes, counted in `consumed`). */
function acceptedOption(spec: ReadOnlyProgram, word: string, next: ShellWord | undefined): number | undefined {
	if (word.startsWith("--")) {
		const [name, value] = word.includes("=") ? [`${word.slice(0, word.indexOf("=") + 1)}`, true] : [word, false];
		return spec.long?.includes(name) && (value || !name.endsWith("=")) ? 1 : undefined;
	}
	for (let index = 1; index < word.length; index++) {
		const letter = word[index] as string;
		if (spec.valueFlags?.includes(letter)) {
			if (index < word.length - 1) return 1; // the value is attached: `-n5`
			return next && isLiteral(next) ? 2 : undefined;
		}
		if (!spec.flags.includes(letter)) return undefined;
	}
	return 1;
}

/**
 * When `words` (a simple command's name and arguments, all literal) is a read-only invocation on
 * the list, the path operands it reads (empty for programs whose operands are data); otherwise
 * undefined. A `-` operand (standard input) and operands after `--` count as operands.
 */
export function readOnlyInvocation(name: string, words: readonly ShellWord[]): ShellWord[] | undefined {
	const spec = READ_ONLY_PROGRAMS.get(name);
	if (!spec || !words.every(isLiteral) || words.some((word) => word.tilde)) return undefined;
	const operands: ShellWord[] = [];
	let options = true;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		if (options && word.value === "--") {
			options = false;
			continue;
		}
		if (options && word.value.startsWith("-") && word.value !== "-") {
			const consumed = acceptedOption(spec, word.value, words[index + 1]);
			if (consumed === undefined) return undefined;
			index += consumed - 1;
			continue;
		}
		operands.push(word);
	}
	if (spec.maxOperands !== undefined && operands.length > spec.maxOperands) return undefined;
	return spec.operands === "paths" ? operands.filter((word) => word.value !== "-") : [];
}
