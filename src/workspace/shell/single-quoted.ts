/** `value` as one single-quoted POSIX shell word: nothing in it is expanded (a `'` becomes `'\''`). */
export function singleQuoted(value: string): string {
	return `'${value.replaceAll("'", `'\\''`)}'`;
}
