// Splitting a shell command into words, as far as finding the files it names needs: not a parser
// (no expansions, no here-documents), but it never merges two words a shell would keep apart.

/** A word of a shell command, and whether it is where a command begins (its program). */
export interface ShellWord {
	/** The word, its quotes and escapes taken out. */
	text: string;
	/** True for the first word of a command (after an operator, `(` or `{`). */
	isProgram: boolean;
}

/**
 * The words of a shell command or script, its quotes and comments taken out, split at blanks and at
 * the shell's operators (`;`, `|`, `&`, a line's end, parentheses, redirections, backquotes).
 */
export function shellWords(command: string): ShellWord[] {
	const words: ShellWord[] = [];
	let word = "";
	let quote: string | undefined;
	let atStart = true;
	const end = (operator: boolean) => {
		if (word !== "") {
			words.push({ text: word, isProgram: atStart });
			atStart = word === "{";
		}
		word = "";
		if (operator) atStart = true;
	};
	for (let index = 0; index < command.length; index++) {
		const char = command[index] as string;
		if (quote) {
			if (char === quote) quote = undefined;
			else if (char === "\\" && quote === '"' && index + 1 < command.length) word += command[++index];
			else word += char;
		} else if (char === "#" && word === "") {
			// A comment, to the end of the line.
			while (index + 1 < command.length && command[index + 1] !== "\n") index++;
		} else if (char === '"' || char === "'") quote = char;
		else if (char === "\\" && index + 1 < command.length) word += command[++index];
		else if (/[;|&()`\n]/.test(char)) end(true);
		else if (/[\s<>]/.test(char)) end(false);
		else word += char;
	}
	end(false);
	return words;
}

/** Script names a command gives its program without a `/` (`sh lint.sh`): taken from the top of the work tree. */
const scriptName = /^[^-$~=][^/=$]*\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|pl|rb|php|lua|ps1)$/;

/**
 * The files a command names: each word holding a `/` (the value after `=` of an option or an
 * assignment: `--config=./x`, `VAR=./x`), or a script's name given to a program (`sh x.sh`; a
 * program named without a `/` is found on PATH, as `credential.helper = gcloud.sh` is), but not a
 * URL or a variable.
 */
export function commandFiles(command: string): string[] {
	const files: string[] = [];
	for (const { text, isProgram } of shellWords(command)) {
		const assigned = text.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(text);
		if (assigned && !text.includes("=")) continue; // a plain option
		const value = assigned ? text.slice(text.indexOf("=") + 1) : text;
		if (value === "" || value.includes("://") || value.startsWith("$")) continue;
		if (value.includes("/") || (!isProgram && !assigned && scriptName.test(value))) files.push(value);
	}
	return files;
}
