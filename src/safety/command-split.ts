/**
 * Splits a shell command line into the simple commands it would run, so that a permission rule
 * can be checked against each of them. `a && b`, `a || b`, `a | b`, `a; b`, `a & b`, newlines,
 * subshells `( … )`, groups `{ …; }`, command substitution `$( … )` and backticks, and process
 * substitution `<( … )` / `>( … )` all yield their inner commands. The split errs on the side of
 * more parts: a construct it does not understand becomes a part of its own, which an allow rule
 * will not match, so the user is asked rather than a command slipping through.
 */

/** Which shell's quoting and escaping rules apply. */
export type ShellDialect = "bash" | "powershell";

/** Reserved words that start a compound command; they run nothing themselves. */
const LEADING_KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time"]);
const TRAILING_KEYWORDS = new Set(["fi", "done", "esac", "}"]);

/** A run of characters with no meaning to the splitter (sticky: matches only at `lastIndex`). */
const plainRun = /[^\\'"#$<>`(){}\n;|&]+/y;
/** A run of characters inside double quotes with no meaning to the splitter. */
const quotedRun = /[^"\\$`]+/y;

interface Scanner {
	text: string;
	index: number;
	dialect: ShellDialect;
}

/**
 * The simple commands of `command`, trimmed, with reserved words (`if`, `then`, `do`, `{`, …)
 * stripped and whitespace collapsed. The outer command keeps the text of its substitutions
 * (`echo $(date)`), and the substituted command (`date`) is a part of its own.
 */
export function splitCommand(command: string, dialect: ShellDialect = "bash"): string[] {
	const parts: string[] = [];
	const scanner: Scanner = { text: command, index: 0, dialect };
	scanSequence(scanner, parts, undefined);
	return parts.map(normalizePart).filter((part) => part !== "");
}

/** Collapses whitespace and strips reserved words around a simple command. */
function normalizePart(part: string): string {
	const words = part.trim().split(/\s+/);
	while (words.length > 0 && LEADING_KEYWORDS.has(words[0] ?? "")) words.shift();
	while (words.length > 0 && TRAILING_KEYWORDS.has(words[words.length - 1] ?? "")) words.pop();
	return words.join(" ").trim();
}

/**
 * Scans simple commands separated by operators until `closer` (a `)` or `` ` ``) or the end.
 * Pushes every simple command found, including the inner ones of substitutions.
 */
function scanSequence(scanner: Scanner, parts: string[], closer: string | undefined): void {
	let current = "";
	const flush = () => {
		parts.push(current);
		current = "";
	};
	const { text, dialect } = scanner;
	while (scanner.index < text.length) {
		// Ordinary characters in one step: only the ones below can change what is a command.
		plainRun.lastIndex = scanner.index;
		const run = plainRun.exec(text);
		if (run) {
			current += run[0];
			scanner.index += run[0].length;
			continue;
		}
		const char = text[scanner.index] as string;
		const next = text[scanner.index + 1];
		if (closer !== undefined && char === closer) {
			scanner.index++;
			flush();
			return;
		}
		if (char === "\\" && dialect === "bash") {
			// A backslash-newline joins lines; any other escaped character is literal.
			if (next === "\n") current += " ";
			else current += text.slice(scanner.index, scanner.index + 2);
			scanner.index += 2;
			continue;
		}
		if (char === "`" && dialect === "powershell") {
			current += text.slice(scanner.index, scanner.index + 2);
			scanner.index += 2;
			continue;
		}
		if (char === "'") {
			const end = text.indexOf("'", scanner.index + 1);
			const stop = end === -1 ? text.length : end + 1;
			current += text.slice(scanner.index, stop);
			scanner.index = stop;
			continue;
		}
		if (char === '"') {
			current += scanDoubleQuoted(scanner, parts);
			continue;
		}
		if (char === "#" && (current === "" || /\s$/.test(current))) {
			const end = text.indexOf("\n", scanner.index);
			scanner.index = end === -1 ? text.length : end;
			continue;
		}
		if (char === "$" && next === "(" && text[scanner.index + 2] === "(" && dialect === "bash") {
			current += scanArithmetic(scanner, parts);
			continue;
		}
		if ((char === "$" || char === "<" || char === ">") && next === "(") {
			current += scanSubstitution(scanner, parts, 2, ")");
			continue;
		}
		if (char === "`" && dialect === "bash") {
			current += scanSubstitution(scanner, parts, 1, "`");
			continue;
		}
		if (char === "(" && current.trim() === "") {
			// A subshell: its commands are parts; the parentheses run nothing themselves.
			scanner.index++;
			scanSequence(scanner, parts, ")");
			continue;
		}
		if (char === "{" && dialect === "powershell") {
			// A script block may run anything: its statements are parts of their own.
			const start = scanner.index;
			scanner.index++;
			scanSequence(scanner, parts, "}");
			current += text.slice(start, scanner.index);
			continue;
		}
		const operator = operatorAt(text, scanner.index, current);
		if (operator > 0) {
			scanner.index += operator;
			flush();
			continue;
		}
		current += char;
		scanner.index++;
	}
	flush();
}

/** Length of a command-separating operator at `index`, or 0. Redirections (`2>&1`, `&>`) are not operators. */
function operatorAt(text: string, index: number, current: string): number {
	const char = text[index];
	const next = text[index + 1];
	if (char === "\n" || char === ";") return next === ";" && char === ";" ? 2 : 1;
	if (char === "|") return next === "|" || next === "&" ? 2 : 1;
	if (char === "&") {
		if (next === "&") return 2;
		if (next === ">") return 0;
		if (/[<>]$/.test(current)) return 0;
		return 1;
	}
	return 0;
}

/** Scans `"…"`, collecting substitutions inside it as parts; returns the quoted text. */
function scanDoubleQuoted(scanner: Scanner, parts: string[]): string {
	const { text, dialect } = scanner;
	const start = scanner.index;
	scanner.index++;
	while (scanner.index < text.length) {
		const char = text[scanner.index];
		const next = text[scanner.index + 1];
		if ((char === "\\" && dialect === "bash") || (char === "`" && dialect === "powershell")) {
			scanner.index += 2;
			continue;
		}
		if (char === '"') {
			scanner.index++;
			break;
		}
		quotedRun.lastIndex = scanner.index;
		const run = quotedRun.exec(text);
		if (run) {
			scanner.index += run[0].length;
			continue;
		}
		if (char === "$" && next === "(") {
			if (text[scanner.index + 2] === "(" && dialect === "bash") scanArithmetic(scanner, parts);
			else scanSubstitution(scanner, parts, 2, ")");
			continue;
		}
		if (char === "`" && dialect === "bash") {
			scanSubstitution(scanner, parts, 1, "`");
			continue;
		}
		scanner.index++;
	}
	return text.slice(start, scanner.index);
}

/** Scans a substitution opened by `openLength` characters; its commands become parts. Returns its text. */
function scanSubstitution(scanner: Scanner, parts: string[], openLength: number, closer: string): string {
	const start = scanner.index;
	scanner.index += openLength;
	scanSequence(scanner, parts, closer);
	return scanner.text.slice(start, scanner.index);
}

/** Scans `$(( … ))`: arithmetic runs nothing, but substitutions inside it do. Returns its text. */
function scanArithmetic(scanner: Scanner, parts: string[]): string {
	const { text } = scanner;
	const start = scanner.index;
	scanner.index += 3;
	let depth = 2;
	while (scanner.index < text.length && depth > 0) {
		const char = text[scanner.index];
		if (char === "$" && text[scanner.index + 1] === "(" && text[scanner.index + 2] !== "(") {
			scanSubstitution(scanner, parts, 2, ")");
			continue;
		}
		if (char === "`") {
			scanSubstitution(scanner, parts, 1, "`");
			continue;
		}
		if (char === "(") depth++;
		if (char === ")") depth--;
		scanner.index++;
	}
	return text.slice(start, scanner.index);
}

/** Wrappers that run the rest of their words as a command. */
const commandWrappers = new Set([
	"env",
	"command",
	"exec",
	"nohup",
	"sudo",
	"xargs",
	"time",
	"nice",
	"builtin",
	"eval",
	"timeout",
	"setsid",
	"stdbuf",
	"ionice",
	"doas",
]);
/** Shells whose `-c` argument is itself a command line. */
const shellPrograms = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

/** A word as the shell would see it after quote removal, near enough for deny rules: `\rm`, `"rm"`, `r\m` are `rm`. */
function unquoted(text: string): string {
	return text.replace(/\\(.)/g, "$1").replace(/["']/g, "");
}

/**
 * Forms of a simple command that a deny or ask rule is also checked against: the command with
 * quotes and backslashes removed, with leading variable assignments and wrappers (`env`,
 * `command`, `sudo`, `timeout 5`, `xargs`, …) removed, with a path on the program dropped, and
 * the commands inside `bash -c '…'`, so that `FOO=1 rm -rf x`, `sudo rm -rf x`, `\rm -rf x` and
 * `sh -c "rm -rf x"` still meet `bash(rm:*)`. Allow rules never use these forms:
 * `PATH=/tmp/evil npm test` must not pass as `npm test`.
 */
export function commandCandidates(part: string, depth = 0): string[] {
	const candidates = [part];
	const plain = unquoted(part);
	candidates.push(plain);
	let words = plain.split(" ");
	let afterTimeout = false;
	for (let guard = 0; guard < 16 && words.length > 1; guard++) {
		const first = words[0] ?? "";
		// `timeout` takes options (some with a value, `-s KILL`) and then a duration before the command.
		const skip =
			afterTimeout ||
			/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) ||
			commandWrappers.has(first) ||
			(first.startsWith("-") && guard > 0);
		if (skip) {
			if (first === "timeout") afterTimeout = true;
			else if (afterTimeout && /^\d+(?:\.\d+)?[smhd]?$/.test(first)) afterTimeout = false;
			words = words.slice(1);
			candidates.push(words.join(" "));
			continue;
		}
		break;
	}
	// `/usr/bin/rm` is `rm` to a deny rule.
	const last = candidates[candidates.length - 1] ?? part;
	const program = last.split(" ")[0] ?? "";
	const name = program.slice(program.lastIndexOf("/") + 1);
	if (program.includes("/")) candidates.push(`${name}${last.slice(program.length)}`);
	// `bash -c 'rm -rf x'`: the script's own commands.
	const script = /(?:^| )-c (['"])(.*)\1$/s.exec(part);
	if (shellPrograms.has(name) && script?.[2] !== undefined && depth < 3) {
		for (const inner of splitCommand(script[2])) candidates.push(...commandCandidates(inner, depth + 1));
	}
	return [...new Set(candidates)];
}
