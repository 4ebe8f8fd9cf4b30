/**
 * The parsers of the shell policy: tree-sitter's bash and PowerShell grammars through its
 * WebAssembly runtime (`@vscode/tree-sitter-wasm`), each loaded on the first check of a command in
 * its dialect only, so that a start that judges no command (`toolbelt tool read`) never pays for
 * it. Every parse is bounded: by the length of the input, by a deadline checked from tree-sitter's
 * progress callback and by the depth of the tree, so that a hostile command is answered (as
 * unparsed) in bounded time.
 */
import type { Parser, TreeCursor } from "@vscode/tree-sitter-wasm";
import { monotonicMs } from "../../engine/index.js";
import { createTreeSitterParser, vscodeTreeSitterGrammar } from "../../syntax/index.js";

/** The longest command the parser reads (characters); a longer one is opaque. Default 65,536. */
export const MAX_PARSED_COMMAND_LENGTH = 65_536;

/** How long one parse may take before it is abandoned and the command counts as opaque. */
export const PARSE_DEADLINE_MS = 250;

/** How deeply constructs may nest (`$( $( … ) )`) before the command counts as opaque. */
export const MAX_SYNTAX_DEPTH = 200;

/**
 * A node of the parse tree as plain data. The tree is copied out of WebAssembly in one cursor
 * walk: reading it through tree-sitter's node objects crosses into WebAssembly for every
 * property, which cost several times the parse itself.
 */
export interface SyntaxNode {
	/** The grammar's node type (`command`, `word`, `&&`…). */
	type: string;
	/** False for punctuation and keywords. */
	isNamed: boolean;
	/** The field this node fills in its parent (`name`, `body`, `redirect`…), if any. */
	field: string | null;
	/** The source text of the node. */
	text: string;
	/** True for a node the parser inserted to recover from an error. */
	isMissing: boolean;
	children: SyntaxNode[];
}

/** The text of the first node the parser could not read, or inserted to recover (either dialect). */
export function errorText(node: SyntaxNode): string | undefined {
	if (node.type === "ERROR" || node.isMissing) return node.text || node.type;
	for (const child of node.children) {
		const text = errorText(child);
		if (text !== undefined) return text;
	}
	return undefined;
}

/** Which shell's syntax a command is written in. */
export type ShellDialect = "bash" | "powershell";

const loading = new Map<ShellDialect, Promise<Parser>>();
const loaded = new Map<ShellDialect, Parser>();

/** A short command through the grammar's common paths, parsed once when the parser loads. */
const warmUpCommands: Readonly<Record<ShellDialect, string>> = {
	bash: "git status && echo \"$HOME\" | grep -v x > /dev/null; ls -la 'a b'",
	powershell: "Get-ChildItem -Path 'a b' | Select-Object Name; git status && Write-Output \"$env:HOME\" > $null",
};

// Through the one loader of the runtime (src/syntax/tree-sitter.ts): the runtime's init replaces
// its module for the whole process, so a second loader would pull it from under the other's parsers.
async function load(dialect: ShellDialect): Promise<Parser> {
	const parser = await createTreeSitterParser(vscodeTreeSitterGrammar(dialect));
	// The first parse compiles the grammar's code (~300 ms for PowerShell on a loaded machine):
	// done here, without a deadline, so that the first command judged is not cut off as unparsed.
	parser.parse(warmUpCommands[dialect])?.delete();
	loaded.set(dialect, parser);
	return parser;
}

/**
 * Loads the parser of `dialect` (default bash; once, later calls return the same promise). Every
 * permission check of a command awaits it before judging; it rejects when the package's
 * WebAssembly cannot be loaded, and the check then refuses the command rather than judging it
 * without a parser.
 */
export function loadShellParser(dialect: ShellDialect = "bash"): Promise<void> {
	let promise = loading.get(dialect);
	if (!promise) {
		promise = load(dialect);
		loading.set(dialect, promise);
		promise.catch(() => {
			// A failed load is tried again by the next check, which refuses meanwhile.
			loading.delete(dialect);
		});
	}
	return promise.then(() => undefined);
}

/**
 * How long after `loadShellParserSoon` the parser starts loading. A model's first call comes a reply
 * after the tools are made (hundreds of ms at the least), and an MCP client's `initialize` and
 * `tools/list` come within a few ms of the server's start: this lets those pass first.
 */
export const SOON_LOAD_DELAY_MS = 200;

/**
 * Starts loading the parser of `dialect` a little later (`SOON_LOAD_DELAY_MS`), unless a check has
 * started it by then: loading is ~80 ms of this thread's time (the runtime's and the grammar's
 * WebAssembly compiled, the grammar's lexer compiled by a first parse), which the first command
 * judged would otherwise wait for. The timer does not keep the process alive; a failed load is
 * left for the next check, which tries again and refuses meanwhile.
 */
export function loadShellParserSoon(dialect: ShellDialect = "bash"): void {
	if (loading.has(dialect)) return;
	setTimeout(() => {
		loadShellParser(dialect).catch(() => {});
	}, SOON_LOAD_DELAY_MS).unref();
}

/** True once `loadShellParser(dialect)` has finished: the synchronous analysis may run. */
export function isShellParserLoaded(dialect: ShellDialect = "bash"): boolean {
	return loaded.has(dialect);
}

/** Why a command has no tree: too long, too deeply nested, or the parse ran past its deadline. */
export type ParseFailure = "too long" | "too deep" | "parse deadline";

/** A parsed command. */
export interface ParsedCommand {
	root: SyntaxNode;
	/** The parser met a syntax error (it recovered with ERROR or missing nodes). */
	hasError: boolean;
}

/** Copies the tree under the cursor into plain nodes, without recursion; undefined when it nests too deeply. */
function copyTree(cursor: TreeCursor, source: string): SyntaxNode | undefined {
	const node = (): SyntaxNode => ({
		type: cursor.nodeType,
		isNamed: cursor.nodeIsNamed,
		field: cursor.currentFieldName,
		text: source.slice(cursor.startIndex, cursor.endIndex),
		isMissing: cursor.nodeIsMissing,
		children: [],
	});
	const root = node();
	const path: SyntaxNode[] = [root];
	for (;;) {
		const parent = path[path.length - 1] as SyntaxNode;
		if (cursor.gotoFirstChild()) {
			if (path.length > MAX_SYNTAX_DEPTH) return undefined;
			const child = node();
			parent.children.push(child);
			path.push(child);
			continue;
		}
		for (;;) {
			if (path.length === 1) return root;
			if (cursor.gotoNextSibling()) {
				path.pop();
				const sibling = node();
				(path[path.length - 1] as SyntaxNode).children.push(sibling);
				path.push(sibling);
				break;
			}
			cursor.gotoParent();
			path.pop();
		}
	}
}

/** What parsing throws before its dialect's parser has loaded (a caller must `await loadShellParser` first). */
export class ShellParserNotLoaded extends Error {
	constructor(readonly dialect: ShellDialect) {
		super(
			`The ${dialect} parser is not loaded: await loadShellParser(${JSON.stringify(dialect)}) before analysing a command.`,
		);
		this.name = "ShellParserNotLoaded";
	}
}

/**
 * Parses `command` as bash, synchronously; `loadShellParser` must have finished (throws
 * otherwise, so that a caller that forgot to load fails loudly instead of allowing).
 */
export function parseBash(command: string): ParsedCommand | ParseFailure {
	return parseShell(command, "bash");
}

/**
 * Parses `command` in `dialect`, synchronously; `loadShellParser(dialect)` must have finished
 * (throws otherwise, so that a caller that forgot to load fails loudly instead of allowing).
 */
export function parseShell(command: string, dialect: ShellDialect): ParsedCommand | ParseFailure {
	const parser = loaded.get(dialect);
	if (!parser) throw new ShellParserNotLoaded(dialect);
	if (command.length > MAX_PARSED_COMMAND_LENGTH) return "too long";
	const deadline = monotonicMs() + PARSE_DEADLINE_MS;
	// The callback's `true` cancels the parse; its declared type says void, its contract says boolean.
	const progressCallback = (() => monotonicMs() > deadline) as unknown as () => void;
	const tree = parser.parse(command, null, { progressCallback });
	if (!tree) {
		parser.reset();
		return "parse deadline";
	}
	const cursor = tree.walk();
	try {
		const root = copyTree(cursor, command);
		return root ? { root, hasError: tree.rootNode.hasError } : "too deep";
	} finally {
		cursor.delete();
		tree.delete();
	}
}
