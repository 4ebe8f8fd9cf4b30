// The shapes the diagnostics part speaks in: a server's description, one diagnostic as toolbelt
// reports it, and what a change's check found.

/** How bad a diagnostic is. Hints and information are not reported: only what a build would flag. */
export type DiagnosticSeverity = "error" | "warning";

/** One diagnostic of a file, as a language server reported it (positions 1-based, in UTF-16 units). */
export interface FileDiagnostic {
	/** 1-based line of its start. */
	line: number;
	/** 1-based column of its start. */
	column: number;
	/** Error or warning. */
	severity: DiagnosticSeverity;
	/** The server's message (first line kept whole; later lines are context). */
	message: string;
	/** The server's code (`2322`, `reportAssignmentType`), when it gives one. */
	code?: string;
	/** Who produced it (`typescript`, `Pyright`), when the server says. */
	source?: string;
}

/**
 * How diagnostics are asked for once a document changed:
 * - `push`: wait for the server's `textDocument/publishDiagnostics` of that version (or, from a
 *   server that sends no version, the first one after the change);
 * - `tsserver`: typescript-language-server forwards tsserver's own synchronous diagnostics requests
 *   (`typescript.tsserverRequest`), an answer for exactly the text sent, with no debounce to wait out.
 * A server that offers LSP pull diagnostics (`textDocument/diagnostic`) is asked that way whatever this says.
 */
export type DiagnosticsRequestKind = "push" | "tsserver";

/** A language server toolbelt can start, and the files it checks. */
export interface LanguageServerSpec {
	/** Its name in settings and results (`typescript`, `python`, `go`). */
	name: string;
	/** The program and its arguments; it must speak LSP over stdin/stdout. */
	command: readonly string[];
	/** File name endings it checks, with the dot (`.ts`). */
	extensions: readonly string[];
	/** The LSP `languageId` of a file. Default: the name. */
	languageIdOf?: (path: string) => string;
	/** Sent as `initializationOptions`. Default: none. */
	initializationOptions?: unknown;
	/** Variables added to its environment. Default: none. */
	env?: Readonly<Record<string, string>>;
	/** How to ask for diagnostics. Default: `push`. */
	request?: DiagnosticsRequestKind;
}

/** What the check of one changed file found. */
export interface FileDiagnosticsReport {
	/** The file as shown. */
	path: string;
	/** The server that checked it. */
	server: string;
	/**
	 * `checked`: the diagnostics of the new text arrived in time; `pending`: they did not (the next
	 * result of this file may carry them); `unavailable`: the server could not be started or crashed
	 * too often (see `note`).
	 */
	status: "checked" | "pending" | "unavailable";
	/** The diagnostics the change introduced (all of them, even where the text cut the list). */
	introduced: FileDiagnostic[];
	/** How many errors and warnings the file has now (when checked). */
	total?: number;
	/** How many of the file's diagnostics before the change are gone (when checked). */
	resolved?: number;
	/** True when these were the pending diagnostics of an earlier change of the file. */
	late?: boolean;
	/** Why the file was not checked, or what went wrong. */
	note?: string;
}
