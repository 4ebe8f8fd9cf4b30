/** Quotes one word for a POSIX shell: single quotes, an embedded `'` written as `'\''`. */
export function shellQuote(word: string): string {
	if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
	return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command line `sh -c SCRIPT sh ARGS…`, quoted for a remote login shell (as `ssh` sends one string). */
export function shCommandLine(script: string, args: readonly string[]): string {
	return ["exec", "sh", "-c", shellQuote(script), "sh", ...args.map(shellQuote)].join(" ");
}
