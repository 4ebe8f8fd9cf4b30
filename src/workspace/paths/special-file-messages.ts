import { ToolError } from "../../engine/index.js";

/** Quotes a path for a POSIX shell command shown to the model (spaces, `'`, `$` stay literal). */
export function shellQuote(text: string): string {
	return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A symlink loop, said with what to do: the links point at each other, so no file is reached. */
export function symlinkLoopMessage(shownPath: string, action: string): string {
	return (
		`Cannot ${action} ${shownPath}: it is a symlink loop (its links point at each other, or there are more than 40 in a row), so it names no file. ` +
		`Inspect the chain with bash (ls -l ${shellQuote(shownPath)}; readlink ${shellQuote(shownPath)}), then point the link at a real file or give that file's path.`
	);
}

/** Writing to something that is not a regular file (a FIFO, socket or device): write would not replace it. */
export function notRegularFileMessage(shownPath: string, action: string): string {
	return (
		`Cannot ${action} ${shownPath}: it is not a regular file (a named pipe, socket or device), and ${action} only replaces regular files, so nothing was written. ` +
		`To send data into a pipe, use bash (e.g. printf '%s\\n' 'text' > ${shellQuote(shownPath)}); to replace it with a regular file, remove it first (rm ${shellQuote(shownPath)} via bash).`
	);
}

/** The error code of `error`, when it has one. */
function codeOf(error: unknown): unknown {
	return (error as { code?: unknown } | null)?.code;
}

/** A symlink-loop failure of `action` on a path as a ToolError for the model; other errors unchanged. */
export function explainLoop(error: unknown, shownPath: string, action: string): unknown {
	return codeOf(error) === "ELOOP" ? new ToolError(symlinkLoopMessage(shownPath, action), { path: shownPath }) : error;
}
