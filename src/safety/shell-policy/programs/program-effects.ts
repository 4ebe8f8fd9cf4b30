/**
 * Programs whose options or input make them run other programs or write files: `find -exec`,
 * `sed 'e'`, `tar --checkpoint-action`, `git -c`, `sort -o`, `git diff --output`… An allow rule
 * for such a program (`bash(find:*)`) allows what the user read, never the program it runs or the
 * file it writes: the commands it names must be allowed themselves, a program it could run that
 * is not named literally makes it a runner (it matches every deny and ask rule, and only an allow
 * rule for the whole tool allows it), and the files it writes are judged like redirections.
 */

import { expandsOnlyByAssignmentTilde, isLiteral, literalWord, type ShellWord } from "../shell-words.js";
import { readCopy } from "./copy.js";
import { readEditor, readPager } from "./editors.js";
import { fileOperandReaders } from "./file-operands.js";
import { readFind } from "./find.js";
import { readGit } from "./git.js";
import { readMake } from "./make.js";
import { readNpm, readPackageExec } from "./npm.js";
import { markRunner, type ProgramEffects, type Reader, readOptions } from "./option-readers.js";
import { readSed } from "./sed.js";
import { readTar } from "./tar.js";
import { readZip } from "./zip.js";

export type { ProgramEffects } from "./option-readers.js";

/** Programs that, whatever their arguments, may run any program (debuggers, remote shells). */
const alwaysRunners = new Set([
	"gdb",
	"lldb",
	"ssh",
	"mosh",
	"expect",
	"emacs",
	"emacsclient",
	// Their SQL or input holds commands that run programs (`.shell`, `.system`, dc's `!`).
	"sqlite3",
	"dc",
]);

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
	// ripgrep runs `--pre`'s program on every file it searches, and `--hostname-bin` for hyperlinks.
	rg: readOptions({ runLong: ["pre", "hostname-bin"], valueShort: "ABCEefgjMmrTt" }, "rg"),
	zip: readZip,
	cp: (words, effects) => readCopy("cp", words, effects),
	mv: (words, effects) => readCopy("mv", words, effects),
	ln: (words, effects) => readCopy("ln", words, effects),
	install: (words, effects) => readCopy("install", words, effects),
	sed: readSed,
	find: readFind,
	tar: readTar,
	git: readGit,
	npm: readNpm,
	npx: (words, effects) => readPackageExec(words, 1, effects),
	make: readMake,
	dd: (words, effects) => {
		for (const word of words.slice(1)) {
			// `of=~/x` looks like an assignment, so bash expands its tilde: the target is in the home folder.
			const homeTarget = word.raw.startsWith("of=~") && expandsOnlyByAssignmentTilde(word);
			if (!isLiteral(word) && !homeTarget) markRunner(effects, words);
			else if (word.value.startsWith("of=")) {
				const target = literalWord(word.value.slice(3));
				effects.writes.push({ word: { ...target, tilde: homeTarget }, via: "dd of=" });
			}
		}
	},
};

Object.assign(readers, fileOperandReaders);

for (const name of ["gcc", "g++", "clang", "clang++", "c++", "tcc"])
	(readers as Record<string, Reader>)[name] = readers.cc as Reader;

/** The effects of running `words` (`words[0]` is the program, by its name without a path), or undefined for an ordinary program. */
export function programEffects(name: string, words: readonly ShellWord[]): ProgramEffects | undefined {
	const effects: ProgramEffects = { runs: [], scripts: [], writes: [], directories: [] };
	if (alwaysRunners.has(name)) markRunner(effects, words);
	else if (/^(?:vim?|nvim|ex|view|rvim|gvim|ed)$/.test(name)) readEditor(words, effects);
	else if (/^(?:less|more|most)$/.test(name)) readPager(words, effects);
	else {
		const reader = Object.hasOwn(readers, name) ? readers[name] : undefined;
		if (!reader) return undefined;
		reader(words, effects);
	}
	return effects;
}
