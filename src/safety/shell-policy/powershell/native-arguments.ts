/**
 * Arguments of native programs that tree-sitter's PowerShell grammar reads as syntax errors,
 * although PowerShell passes each on as one literal word: an option with an attached value
 * (`--format=x`, `-Dname=value`), a bare `--`, and find's `{}` and `+` (`find . -exec rm {} +`).
 * Before parsing, each such token standing as an argument is swapped for a placeholder the grammar
 * reads as a bare word (`maskNativeArguments`); after parsing, the placeholders are put back and
 * the words marked `native_argument` (`restoreNativeArguments`), so that the reader can hold them to
 * the commands where that reading is PowerShell's (`nativeArgumentProblem`).
 *
 * What is left out on purpose, and stays opaque: a value holding `.` or `:` (PowerShell splits
 * `-name=a.b` into two arguments, #6291 of PowerShell's tracker), a quoted value, any other
 * character with a meaning to PowerShell, and these tokens given to a cmdlet or an alias, which
 * binds `--` and `-name` itself.
 */
import type { SyntaxNode } from "../parser.js";

/** The node type given to a restored argument (not one of the grammar's). */
export const NATIVE_ARGUMENT = "native_argument";

/** Marks a placeholder's start and end; a command holding either is not masked. */
const OPEN = "\uE000";
const CLOSE = "\uE001";
/** Placeholder digits: private-use characters, so that the grammar reads a placeholder as letters of a bare word. */
const DIGIT_BASE = 0xe100;

/**
 * A token to mask, standing after a blank that follows a word on the same line (an argument, never
 * a command name or an operand of an expression), and ending at a blank, `;`, `|` or the end.
 * The blank before it must not be escaped by a backtick, which would join the two words.
 */
const candidate = /(?<=[\w\-./\\~'"+%}*?\]^][ \t]+)(?:--?[A-Za-z0-9][\w-]*=[\w%/+^~=-]*|--|\{\}|\+)(?=[ \t\r\n;|]|$)/g;

/** A command with its tokens masked, and the tokens by placeholder. */
export interface MaskedCommand {
	/** The command with each token replaced by its placeholder. */
	text: string;
	/** The original token of each placeholder. */
	tokens: ReadonlyMap<string, string>;
}

function placeholder(index: number): string {
	let digits = "";
	do {
		digits = String.fromCharCode(DIGIT_BASE + (index % 256)) + digits;
		index = Math.floor(index / 256);
	} while (index > 0);
	return OPEN + digits + CLOSE;
}

/** Masks the tokens of `command`; undefined when it holds none (or holds a placeholder's marks). */
export function maskNativeArguments(command: string): MaskedCommand | undefined {
	if (command.includes(OPEN) || command.includes(CLOSE)) return undefined;
	const tokens = new Map<string, string>();
	const text = command.replace(candidate, (token) => {
		const key = placeholder(tokens.size);
		tokens.set(key, token);
		return key;
	});
	return tokens.size === 0 ? undefined : { text, tokens };
}

const placeholders = new RegExp(`${OPEN}[^${CLOSE}]*${CLOSE}`, "g");

/** Leaves that may hold a placeholder as mere text: strings and comments, read by their text. */
const textLeaves = new Set([
	"verbatim_string_characters",
	"verbatim_here_string_characters",
	"expandable_string_literal",
	"expandable_here_string_literal",
	"comment",
]);

/**
 * Puts the tokens back into every node's text, and marks a bare word that is exactly one token,
 * standing among a command's arguments, as `native_argument`. Returns the text of the first leaf
 * that holds a token anywhere else (the masking read it wrongly: the command is then opaque).
 */
export function restoreNativeArguments(root: SyntaxNode, masked: MaskedCommand): string | undefined {
	let misplaced: string | undefined;
	const restore = (text: string) => text.replace(placeholders, (key) => masked.tokens.get(key) ?? key);
	const visit = (node: SyntaxNode, parent: SyntaxNode | undefined) => {
		const holds = node.text.includes(OPEN);
		if (holds && node.children.length === 0) {
			const argument =
				node.type === "generic_token" && parent?.type === "command_elements" && masked.tokens.has(node.text);
			if (argument) node.type = NATIVE_ARGUMENT;
			else if (!textLeaves.has(node.type)) misplaced ??= restore(node.text);
		}
		for (const child of node.children) visit(child, node);
		if (holds) node.text = restore(node.text);
	};
	visit(root, undefined);
	return misplaced;
}

/** The cmdlets' parameter binding applies to these: `--` ends parameters, `-name=value` is not passed whole. */
export type ProgramKind = "native" | "cmdlet";

/**
 * Why the restored arguments of a command are not read as PowerShell passes them, or undefined
 * when they are: none may go to a cmdlet or alias; `{}` and `+` only to find (elsewhere `{}` is a
 * script block); after a bare `--`, no `-name:value` (PowerShell splits it there, #17399).
 */
export function nativeArgumentProblem(
	program: { name: string; kind: ProgramKind },
	words: readonly { raw: string; native: boolean }[],
): string | undefined {
	const native = words.filter((word) => word.native);
	if (native.length === 0) return undefined;
	if (program.kind === "cmdlet") return native[0]?.raw;
	const findOnly = native.find((word) => word.raw === "{}" || word.raw === "+");
	if (findOnly && program.name !== "find") return findOnly.raw;
	const end = words.findIndex((word) => word.native && word.raw === "--");
	if (end === -1) return undefined;
	return words.slice(end + 1).find((word) => /^-.*:/.test(word.raw))?.raw;
}
