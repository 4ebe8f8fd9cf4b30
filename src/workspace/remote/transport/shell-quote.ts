import { singleQuoted } from "../../shell/single-quoted.js";
/** Quotes one word for a POSIX shell: single quotes, an embedded `'` written as `'\''`. */
export function shellQuote(word: string): string {
	if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
	return singleQuoted(word);
}

/** The command line `sh -c SCRIPT sh ARGS…`, quoted for a remote login shell (as `ssh` sends one string). */
export function shCommandLine(script: string, args: readonly string[]): string {
	return ["exec", "sh", "-c", shellQuote(script), "sh", ...args.map(shellQuote)].join(" ");
}

/**
 * Quotes one word so that the quoted text fits on one line: a newline becomes `"$nl"` (the script
 * channel's loop sets `nl` to a newline). A word with a NUL byte cannot reach a shell; that throws.
 */
export function shellQuoteOneLine(word: string): string {
	if (word.includes("\0")) {
		throw Object.assign(
			new Error(`The argument ${JSON.stringify(word)} holds a NUL byte, which no path or name can.`),
			{
				code: "EINVAL",
			},
		);
	}
	return shellQuote(word).replaceAll("\n", `'"$nl"'`);
}
