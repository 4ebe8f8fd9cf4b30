/**
 * The words of a parsed command, as the permission rules see them: a word is literal (its value
 * is what the program receives), or holds plain parameter expansions (`$NAME`, `${NAME}`, quoted
 * or not) whose values are unknown, marked in `value` by `UNKNOWN`. Any other expansion in a word
 * (command or process substitution, `${x@P}` and other operators, arithmetic on variables, a
 * translated `$"…"`) is not a word the rules can read: `readWord` reports it as an opaque construct.
 */
import type { OpaqueConstructName } from "./opaque-constructs.js";
import type { SyntaxNode } from "./parser.js";

/** Stands in a word's value for the unknown value of a parameter expansion (any text, any number of words). */
export const UNKNOWN = "\u0001";

/** One word of a simple command. */
export interface ShellWord {
	/** The word as written. */
	raw: string;
	/** The word after quote removal, with `UNKNOWN` where a parameter expansion stands. */
	value: string;
	/** It holds a parameter expansion (`$x`, `"${x}"`): its value is not known before it runs. */
	expands: boolean;
	/** It holds an unquoted glob or brace (`*`, `?`, `[`, `{a,b}`), so it may become other words. */
	globs: boolean;
	/** It starts with an unquoted `~` (home expansion). */
	tilde: boolean;
}

/** True when the shell passes the word as written (after quote removal). */
export function isLiteral(word: ShellWord): boolean {
	return !word.expands && !word.globs;
}

/**
 * True when bash may make the word into other words, or several: a brace expansion
 * (`{-delete,}`, `{5,rm}`) or a glob that files may match. A bare `{}` (xargs' and find's
 * placeholder) is no expansion and stays one word.
 */
export function maySplit(word: ShellWord): boolean {
	return word.globs && !/^[^*?[{]*\{\}[^*?[{]*$/.test(word.raw);
}

/** A word made from known text (an option's attached value, a rule's own words). */
export function literalWord(value: string): ShellWord {
	return { raw: value, value, expands: false, globs: false, tilde: false };
}

/** Receives the first construct that makes a word unreadable. */
export type OpaqueSink = (construct: OpaqueConstructName, text: string) => void;

/** An unquoted glob character not escaped by a backslash. */
const unescapedGlob = /(?:^|[^\\])(?:\\\\)*[*?[]/;

/** Node types a plain arithmetic expansion may hold: numbers and operators, never a name. */
const arithmeticNodes = new Set([
	"number",
	"binary_expression",
	"unary_expression",
	"parenthesized_expression",
	"ternary_expression",
]);

function plainArithmetic(node: SyntaxNode): boolean {
	for (const child of node.children) {
		if (!child.isNamed) continue;
		if (!arithmeticNodes.has(child.type) || !plainArithmetic(child)) return false;
	}
	return true;
}

/** `${NAME}` and `${1}` alone, no operator: the only braced expansion that is plain. */
function plainBracedExpansion(node: SyntaxNode): boolean {
	const named = node.children.filter((child) => child.isNamed);
	return (
		named.length === 1 &&
		(named[0]?.type === "variable_name" || named[0]?.type === "special_variable_name") &&
		node.children.length === 3
	);
}

/** Reads the pieces of a word node into `word`; reports what it cannot read. */
function readPiece(node: SyntaxNode, word: ShellWord, opaque: OpaqueSink, quoted: boolean): void {
	switch (node.type) {
		case "word": {
			const text = node.text;
			if (!quoted && unescapedGlob.test(text)) word.globs = true;
			if (!quoted && (text === "{" || text === "}")) word.globs = true;
			word.value += text.replace(/\\(.)/gs, "$1");
			return;
		}
		case "number":
		case "file_descriptor":
		case "variable_name":
		case "test_operator":
			word.value += node.text;
			return;
		case "raw_string":
			word.value += node.text.slice(1, -1);
			return;
		case "string_content":
			word.value += node.text.replace(/\\([$`"\\\n])/g, "$1");
			return;
		case "translated_string":
			// Bash replaces `$"…"` with its translation from the catalog TEXTDOMAINDIR and TEXTDOMAIN
			// name, and expands that as a "…" string: a catalog in the workspace can hold `$(cmd)`.
			opaque("translated string", node.text);
			for (const child of node.children) if (child.isNamed) readPiece(child, word, opaque, true);
			return;
		case "string":
			// Its quotes are punctuation; a `$` in it without a node of its own is a literal dollar (`"a$"`).
			for (const child of node.children) readPiece(child, word, opaque, true);
			return;
		case "concatenation":
			node.children.forEach((child, index) => {
				if (translatedAt(node.children, index)) opaque("translated string", node.text);
				readPiece(child, word, opaque, quoted);
			});
			return;
		case "simple_expansion":
		case "expansion":
		case "ansi_c_string":
		case "arithmetic_expansion":
			// `$'\x72m'` holds escapes the rules do not decode: its value counts as unknown too.
			if (node.type === "expansion" && !plainBracedExpansion(node)) opaque("parameter expansion operator", node.text);
			if (node.type === "arithmetic_expansion" && !plainArithmetic(node)) opaque("arithmetic on variables", node.text);
			word.expands = true;
			word.value += UNKNOWN;
			return;
		case "brace_expression":
		case "extglob_pattern":
			word.globs = true;
			word.value += node.text;
			return;
		case "command_substitution":
			opaque("command substitution", node.text);
			return;
		case "process_substitution":
			opaque("process substitution", node.text);
			return;
		default:
			if (!node.isNamed) {
				// `"`, `{`: punctuation of a string or a concatenation. A `$` the grammar gives no node of its
				// own is bash's literal dollar (`x$`, `"a$"`, a lone `$`), part of the word's value.
				if (node.type === "{" || node.type === "}") word.globs ||= !quoted;
				if (node.type !== '"') word.value += node.text;
				return;
			}
			opaque("unrecognised syntax", `${node.type}: ${node.text}`);
	}
}

/**
 * True when `nodes[index]` is a `$` the grammar split from the string after it: bash reads `$"…"`
 * as one translated string (the grammar gives that a node of its own only as a command's name, an
 * assignment's value or a redirection's target). A `$` and a string apart (`echo $ "x"`) count too.
 */
export function translatedAt(nodes: readonly SyntaxNode[], index: number): boolean {
	return nodes[index]?.type === "$" && nodes[index + 1]?.type === "string";
}

/**
 * An argument shaped like an assignment with a tilde after its first `=` or after a `:` (`a=~/x`,
 * `a[1]+=b:~/y`): bash expands that tilde too (`cat a=~/x` reads `a=/root/x`, through a folder `a=`
 * of the workspace and a link in it), so the word's value is not what the program receives.
 */
const assignmentTilde = /^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=(?:~|[^\n]*:~)/;

/** Reads one word node (a command name, an argument, a redirection target). */
export function readWord(node: SyntaxNode, opaque: OpaqueSink): ShellWord {
	const raw = node.text;
	const word: ShellWord = { raw, value: "", expands: false, globs: false, tilde: raw.startsWith("~") };
	readPiece(node, word, opaque, false);
	if (assignmentTilde.test(raw)) word.expands = true;
	return word;
}

/** True when `word` expands only by the tilde of an assignment-shaped argument (`of=~/x`), otherwise literal. */
export function expandsOnlyByAssignmentTilde(word: ShellWord): boolean {
	return word.expands && !word.globs && !word.value.includes(UNKNOWN) && assignmentTilde.test(word.raw);
}
