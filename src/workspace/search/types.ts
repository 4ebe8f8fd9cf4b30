/**
 * Longest line the built-in search holds to match as a whole. A longer line (a 1 GB single-line
 * file) is not searched, and the result says so: memory stays bounded by this, not by the line.
 */
export const MAX_WALKER_LINE_BYTES = 16 * 1024 * 1024;

/** Which engine produced a search result. */
export type SearchBackendName = "ripgrep" | "walker";

/** One line of grep output: a match, or a context line around one. */
export interface GrepLine {
	/**
	 * `match` for a line that matches, `context` for a line shown around one, `binary` for a
	 * binary file that holds a match (only for a file named as the search path; `lineNumber` is
	 * 0 and `text` empty, as binary lines are not shown), `long-line` for a line too long to be
	 * searched by the built-in search (`text` empty; see `MAX_WALKER_LINE_BYTES`).
	 */
	kind: "match" | "context" | "binary" | "long-line";
	/** Path relative to the search root, with `/` (the file name when one file was searched). */
	path: string;
	/** 1-based line number. */
	lineNumber: number;
	/** The line without its line terminator. */
	text: string;
	/** Character offset (UTF-16) of the first match in `text`, for cutting long lines around it. */
	matchStart?: number;
	/** Character offset (UTF-16) just past the first match in `text`. */
	matchEnd?: number;
}

/** What a grep backend is asked to search. */
export interface GrepRequest {
	/** Absolute path of the directory to run in (the search root, or the parent of a single file). */
	root: string;
	/**
	 * The same folder as `root`, pinned: a path that reaches the verified, opened folder
	 * (`/proc/self/fd/N`), so a symlink swapped after the check cannot redirect the search. What is
	 * read goes through it; `root` still names the folder (ignore files above it). Default: `root`.
	 */
	openedRoot?: string;
	/**
	 * Where the folder could not be held open (a remote disk) and the guards confined the call: the
	 * real path they checked. The backend enters the folder by it and searches only when the folder
	 * it reached still has it, in one command (a link swapped in since makes the search fail).
	 */
	realRoot?: string;
	/** A single file (name relative to `root`) to search instead of the whole root. */
	file?: string;
	/** The regular expression, or the literal text when `literal` is true. */
	pattern: string;
	/** Treat `pattern` as literal text. */
	literal: boolean;
	/** Match case exactly. */
	caseSensitive: boolean;
	/** Lines of context before and after each match. */
	context: number;
	/** Only files matching this glob (a name glob at any depth, or a path glob with `/`); ignored files stay ignored. */
	include?: string;
	/** Skip files (and folders) whose path matches this glob. */
	exclude?: string;
	/** Honour .gitignore, .ignore and .rgignore. */
	respectIgnoreFiles: boolean;
	/**
	 * Send files in path order (`comparePaths`), so that a caller with a limit can stop once it has
	 * the first matches: ripgrep then walks in one thread (`--sort path`). Default: false (any order).
	 */
	pathOrder?: boolean;
}

/** What a file-listing backend is asked to list. */
export interface ListFilesRequest {
	/** Absolute path of the directory whose files are listed. */
	root: string;
	/**
	 * The same folder as `root`, pinned: a path that reaches the verified, opened folder
	 * (`/proc/self/fd/N`), so a symlink swapped after the check cannot redirect the search. What is
	 * read goes through it; `root` still names the folder (ignore files above it). Default: `root`.
	 */
	openedRoot?: string;
	/**
	 * Where the folder could not be held open (a remote disk) and the guards confined the call: the
	 * real path they checked. The backend enters the folder by it and searches only when the folder
	 * it reached still has it, in one command (a link swapped in since makes the search fail).
	 */
	realRoot?: string;
	/** Glob the listed paths must match: against the relative path when it holds `/`, else the name. Ignored files stay ignored. */
	pattern: string;
	/** Honour .gitignore, .ignore and .rgignore. */
	respectIgnoreFiles: boolean;
	/**
	 * Send paths in path order (`comparePaths`), so that a caller with a limit can stop once it has
	 * the first ones: ripgrep then walks in one thread (`--sort path`). Default: false (any order).
	 */
	pathOrder?: boolean;
}

/** A file-system entry as the search tools need to know it. */
export interface SearchPathInfo {
	/** True for a directory (after following symlinks). */
	isDirectory: boolean;
}

/** A running search: which backend answers, and the stream of its results. */
export interface SearchStream<TItem> {
	/** The backend that is producing `items`. */
	backend: SearchBackendName;
	/** Why the walker answers instead of ripgrep (ripgrep missing or failed to start). */
	fallbackReason?: string;
	/**
	 * True when files arrive in path order (`GrepRequest.pathOrder` honoured): the first matches
	 * seen are the first in path order, so a caller may stop at its limit. Default: false.
	 */
	pathOrdered?: boolean;
	/**
	 * The results, streamed in batches (one per chunk read, so per-item overhead stays low).
	 * Stops promptly when the signal aborts or the consumer stops iterating early (`break`):
	 * the process behind it is killed. An aborted stream throws the signal's reason.
	 */
	items: AsyncIterable<readonly TItem[]>;
}

/**
 * Every side effect of grep and find. The default runs ripgrep and falls back to the built-in
 * walker; inject your own to search a remote workspace or to force one backend.
 */
export interface SearchOperations {
	/** Describes a path, or returns undefined when it does not exist. */
	stat(absolutePath: string): Promise<SearchPathInfo | undefined>;
	/**
	 * Starts a content search. Lines come file by file (a file's lines in order, with context
	 * merged). Iterating throws an error whose message explains a bad pattern.
	 */
	grep(request: GrepRequest, signal: AbortSignal): Promise<SearchStream<GrepLine>>;
	/** Starts a file listing: relative POSIX paths of matching files, in any order unless `pathOrder` is asked for and honoured. */
	listFiles(request: ListFilesRequest, signal: AbortSignal): Promise<SearchStream<string>>;
	/**
	 * Called as a search tool (grep, find) is created: starts ahead what its first search needs (the
	 * local operations: the shell that starts the first ripgrep), so that the search does not wait
	 * for it. Must not block, and cost nothing where no search follows but a waiting local process
	 * (a remote workspace prepares its connection as a listing's folder is resolved instead). Optional.
	 */
	prepareAtCreation?(): void;
}
