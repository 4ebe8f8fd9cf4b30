/**
 * The bash parser of the shell policy: tree-sitter's bash grammar through its WebAssembly runtime
 * (`@vscode/tree-sitter-wasm`), loaded on the first command check only, so that a start that
 * judges no command (`toolbelt tool read`) never pays for it. Every parse is bounded: by the
 * length of the input and by a deadline checked from tree-sitter's progress callback, so that a
 * hostile command is answered (as unparsed) in bounded time.
 */
import type { Node, Parser } from "@vscode/tree-sitter-wasm";
import { createTreeSitterParser, vscodeTreeSitterGrammar } from "../../syntax/index.js";

export type { Node as SyntaxNode } from "@vscode/tree-sitter-wasm";

/** The longest command the parser reads (characters); a longer one is opaque. Default 65,536. */
export const MAX_PARSED_COMMAND_LENGTH = 65_536;

/** How long one parse may take before it is abandoned and the command counts as opaque. */
export const PARSE_DEADLINE_MS = 250;

let loading: Promise<Parser> | undefined;
let loaded: Parser | undefined;

// Through the one loader of the runtime (src/syntax/tree-sitter.ts): the runtime's init replaces
// its module for the whole process, so a second loader would pull it from under the other's parsers.
async function load(): Promise<Parser> {
	const parser = await createTreeSitterParser(vscodeTreeSitterGrammar("bash"));
	loaded = parser;
	return parser;
}

/**
 * Loads the bash parser (once; later calls return the same promise). Every permission check of a
 * command awaits it before judging; it rejects when the package's WebAssembly cannot be loaded,
 * and the check then refuses the command rather than judging it without a parser.
 */
export function loadShellParser(): Promise<void> {
	loading ??= load();
	loading.catch(() => {
		// A failed load is tried again by the next check, which refuses meanwhile.
		loading = undefined;
	});
	return loading.then(() => undefined);
}

/** True once `loadShellParser` has finished: the synchronous analysis may run. */
export function isShellParserLoaded(): boolean {
	return loaded !== undefined;
}

/** Why a command has no tree: too long, or the parse ran past its deadline. */
export type ParseFailure = "too long" | "parse deadline";

/** A parsed command: its root node, to be released with `release` once read. */
export interface ParsedCommand {
	root: Node;
	release: () => void;
}

/**
 * Parses `command` as bash, synchronously; `loadShellParser` must have finished (throws
 * otherwise, so that a caller that forgot to load fails loudly instead of allowing).
 */
export function parseBash(command: string): ParsedCommand | ParseFailure {
	const parser = loaded;
	if (!parser) throw new Error("The shell parser is not loaded: await loadShellParser() before analysing a command.");
	if (command.length > MAX_PARSED_COMMAND_LENGTH) return "too long";
	const deadline = performance.now() + PARSE_DEADLINE_MS;
	// The callback's `true` cancels the parse; its declared type says void, its contract says boolean.
	const progressCallback = (() => performance.now() > deadline) as unknown as () => void;
	const tree = parser.parse(command, null, { progressCallback });
	if (!tree) {
		parser.reset();
		return "parse deadline";
	}
	return { root: tree.rootNode, release: () => tree.delete() };
}
