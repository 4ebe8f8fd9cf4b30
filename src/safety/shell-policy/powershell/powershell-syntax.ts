/**
 * Reads a PowerShell parse tree (tree-sitter's PowerShell grammar) into the simple commands it
 * runs, in the same whitelist model as bash: a command line is plain when every statement is a
 * pipeline of commands joined by `|`, `&&`, `||`, `;` or newlines, each command named by a literal
 * word (optionally after the `&` call operator), and every argument a literal word, a quoted
 * literal string, or a plain variable (`$name`, `${name}`, `$env:NAME`, alone or inside a
 * double-quoted string), with redirections to literal paths. The few arguments of native programs
 * the grammar cannot read (`--opt=value`, `--`, find's `{} +`) are read through `native-arguments.ts`. Everything else — script blocks,
 * subexpressions, splatting, dot-sourcing, expressions, backtick escapes, `--%`, statements other
 * than pipelines, a syntax error — is reported as opaque, by the construct it is.
 */
import type { BashReading, Redirection, SimpleCommand } from "../bash-syntax.js";
import type { OpaqueConstructName } from "../opaque-constructs.js";
import { errorText, parseShell, type SyntaxNode } from "../parser.js";
import { type OpaqueSink, type ShellWord, UNKNOWN } from "../shell-words.js";
import {
	maskNativeArguments,
	NATIVE_ARGUMENT,
	nativeArgumentProblem,
	restoreNativeArguments,
} from "./native-arguments.js";
import { bindsParameters, programName } from "./powershell-commands.js";

/** Statements that are never plain, by the construct they are. */
const opaqueStatements: ReadonlyMap<string, OpaqueConstructName> = new Map([
	["if_statement", "if statement"],
	["switch_statement", "case statement"],
	["foreach_statement", "loop"],
	["for_statement", "loop"],
	["while_statement", "loop"],
	["do_statement", "loop"],
	["function_statement", "function definition"],
	["filter_statement", "function definition"],
	["class_statement", "function definition"],
	["trap_statement", "code run later"],
	["assignment_expression", "PowerShell expression"],
]);

/** Argument expressions that are never plain, by the construct they are. */
const opaqueArguments: ReadonlyMap<string, OpaqueConstructName> = new Map([
	["sub_expression", "subexpression"],
	["parenthesized_expression", "subexpression"],
	["array_expression", "subexpression"],
	["script_block_expression", "script block"],
	["script_block", "script block"],
]);

/**
 * Quotes and dashes PowerShell reads as `'`, `"` and `-` although the grammar does not: a command
 * holding one is not read the way PowerShell runs it.
 */
const typographicQuoteOrDash = /[\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u2013\u2014\u2015]/;

/** A plain variable: `$name`, `$env:NAME`, `$script:name`, `$_`, `${any name}`. */
const plainVariable = /^\$(?:(?:\w+:)?\w+|[_?$^]|\{[^{}`]+\})$/;

/** `2>$null`, `*>>$null`: the grammar reads it as one bare token; output thrown away. */
const redirectionToNull = /^[1-6*]?>>?\$null$/i;

/** Characters that a bare PowerShell token never holds literally: the grammar misread something. */
const unreadableInToken = /[$@(){};&|,<>"'=]/;

interface Reader {
	reading: BashReading;
	opaque: OpaqueSink;
	/** Words read from `native_argument` nodes, to be held to native programs. */
	nativeWords: Set<ShellWord>;
}

function collapse(text: string): string {
	return text.trim().replace(/\s+/g, " ");
}

function namedChildren(node: SyntaxNode): SyntaxNode[] {
	return node.children.filter((child) => child.isNamed && child.type !== "comment");
}

/** Reads `command` (PowerShell); parsing is bounded (see `parseShell`). The parser must be loaded. */
export function readPowerShell(command: string): BashReading {
	const reading: BashReading = { commands: [] };
	const opaque: OpaqueSink = (construct, text) => {
		reading.opaque ??= { construct, text: text.length > 120 ? `${text.slice(0, 120)}…` : text };
	};
	if (typographicQuoteOrDash.test(command)) opaque("typographic quote or dash", command);
	const masked = maskNativeArguments(command);
	const parsed = parseShell(masked?.text ?? command, "powershell");
	if (typeof parsed === "string") {
		const construct =
			parsed === "too long" ? "command too long" : parsed === "too deep" ? "nesting too deep" : "unparsed syntax";
		opaque(construct, `${command.slice(0, 60)}…`);
		return reading;
	}
	const misplaced = masked ? restoreNativeArguments(parsed.root, masked) : undefined;
	if (parsed.hasError) opaque("unparsed syntax", errorText(parsed.root) ?? command);
	if (misplaced !== undefined) opaque("unparsed syntax", misplaced);
	readStatements({ reading, opaque, nativeWords: new Set() }, parsed.root);
	return reading;
}

/** `program` and `statement_list`: statements one after another. */
function readStatements(reader: Reader, node: SyntaxNode): void {
	for (const child of namedChildren(node)) {
		if (child.type === "statement_list") readStatements(reader, child);
		else if (child.type === "empty_statement") continue;
		else if (child.type === "pipeline") readPipeline(reader, child);
		else reader.opaque(opaqueStatements.get(child.type) ?? "unrecognised syntax", child.text);
	}
}

/** `a | b && c || d`: chains of commands. */
function readPipeline(reader: Reader, node: SyntaxNode): void {
	for (const child of namedChildren(node)) {
		if (child.type === "pipeline_chain") readChain(reader, child);
		else if (child.type === "pipeline_chain_tail") readPipeline(reader, child);
		else reader.opaque(opaqueStatements.get(child.type) ?? "PowerShell expression", child.text);
	}
}

/** `a | b | c`: every element must be a command (an expression piped in is not one). */
function readChain(reader: Reader, node: SyntaxNode): void {
	for (const child of namedChildren(node)) {
		if (child.type === "command") reader.reading.commands.push(readCommand(reader, child));
		else reader.opaque("PowerShell expression", child.text);
	}
}

/** One command: its call operator, name, arguments and redirections. */
function readCommand(reader: Reader, node: SyntaxNode): SimpleCommand {
	const command: SimpleCommand = { text: collapse(node.text), assignments: [], words: [], redirections: [] };
	for (const child of namedChildren(node)) {
		if (child.type === "command_invokation_operator") {
			// `. file` runs the file in the caller's scope; `&` alone calls the named command.
			if (child.text.trim() === ".") reader.opaque("sourced code", node.text);
		} else if (child.field === "command_name") {
			command.words.push(readCommandName(reader, child));
		} else if (child.type === "command_elements") {
			readElements(reader, child, command);
		} else if (child.type === "foreach_command") {
			// `% { … }`: the grammar's own node for ForEach-Object with a block.
			reader.opaque("script block", child.text);
		} else reader.opaque("unrecognised syntax", child.text);
	}
	checkNativeArguments(reader, command);
	return command;
}

/** Holds the arguments read through `native-arguments.ts` to the programs PowerShell passes them to whole. */
function checkNativeArguments(reader: Reader, command: SimpleCommand): void {
	const first = command.words[0];
	if (!first || !command.words.some((word) => reader.nativeWords.has(word))) return;
	const name = programName(first.value);
	const words = command.words.map((word) => ({ raw: word.raw, native: reader.nativeWords.has(word) }));
	const problem = nativeArgumentProblem({ name, kind: bindsParameters(name) ? "cmdlet" : "native" }, words);
	if (problem !== undefined) reader.opaque(problem === "{}" ? "script block" : "unparsed syntax", command.text);
}

/** The command's name: a literal word, or after `&` a literal string. */
function readCommandName(reader: Reader, node: SyntaxNode): ShellWord {
	let name = node;
	if (node.type === "command_name_expr") {
		const inner = namedChildren(node);
		const first = inner[0];
		if (inner.length !== 1 || !first || (first.type !== "command_name" && first.type !== "string_literal")) {
			reader.opaque("call operator with an expression", node.text);
			return { raw: node.text, value: UNKNOWN, expands: true, globs: false, tilde: false };
		}
		name = first;
	}
	if (name.type === "string_literal") return readString(reader, name);
	const text = name.text;
	if (text.includes("`")) reader.opaque("backtick escape", text);
	else if (unreadableInToken.test(text)) reader.opaque("expanded command name", text);
	return { raw: text, value: text, expands: false, globs: /[*?[]/.test(text), tilde: text.startsWith("~") };
}

/** The arguments and redirections; pieces not separated by blanks form one word (`-Path:x`). */
function readElements(reader: Reader, node: SyntaxNode, command: SimpleCommand): void {
	let word: ShellWord | undefined;
	const finish = () => {
		if (word) command.words.push(word);
		word = undefined;
	};
	for (const child of node.children) {
		if (child.type === "command_argument_sep" && child.text === ":" && word) {
			if (reader.nativeWords.has(word)) reader.opaque("unparsed syntax", node.text);
			// `-Path:value` binds the value to the parameter; a native program receives one word.
			word = join(word, { raw: ":", value: ":", expands: false, globs: false, tilde: false });
			continue;
		}
		if (child.type === "command_argument_sep" || child.type === "comment") {
			finish();
			continue;
		}
		if (child.type === "redirection") {
			finish();
			readRedirection(reader, child, command.redirections);
			continue;
		}
		if (child.type === "generic_token" && redirectionToNull.test(child.text)) {
			finish();
			continue;
		}
		if (child.type === "stop_parsing") {
			reader.opaque("stop-parsing token", child.text);
			continue;
		}
		const piece = readArgument(reader, child);
		// A native argument is a word of its own; joined to another piece it is not what the masking read.
		if (word && (child.type === NATIVE_ARGUMENT || reader.nativeWords.has(word)))
			reader.opaque("unparsed syntax", node.text);
		word = word ? join(word, piece) : piece;
		if (child.type === NATIVE_ARGUMENT) reader.nativeWords.add(word);
	}
	finish();
}

function join(first: ShellWord, second: ShellWord): ShellWord {
	return {
		raw: first.raw + second.raw,
		value: first.value + second.value,
		expands: first.expands || second.expands,
		globs: first.globs || second.globs,
		tilde: first.tilde,
	};
}

/** One piece of an argument. */
function readArgument(reader: Reader, node: SyntaxNode): ShellWord {
	const text = node.text;
	const unknown: ShellWord = { raw: text, value: UNKNOWN, expands: true, globs: false, tilde: false };
	if (node.type === NATIVE_ARGUMENT) return { raw: text, value: text, expands: false, globs: false, tilde: false };
	if (node.type === "generic_token" || node.type === "command_parameter") {
		if (text.includes("`")) reader.opaque("backtick escape", text);
		else if (unreadableInToken.test(text.replace(/:$/, ""))) reader.opaque("unrecognised syntax", text);
		const globs = node.type === "generic_token" && /[*?[]/.test(text);
		return { raw: text, value: text, expands: false, globs, tilde: text.startsWith("~") };
	}
	if (node.type !== "array_literal_expression") {
		reader.opaque(opaqueArguments.get(node.type) ?? "unrecognised syntax", text);
		return unknown;
	}
	// `a,b` is an array, `-not $x` an operator: only a single plain value is a word.
	const unary = namedChildren(node);
	const value = unary.length === 1 && unary[0]?.type === "unary_expression" ? namedChildren(unary[0]) : [];
	const only = value.length === 1 ? value[0] : undefined;
	if (!only) {
		reader.opaque("PowerShell expression", text);
		return unknown;
	}
	if (only.type === "string_literal") return readString(reader, only);
	if (only.type === "variable") {
		if (text.startsWith("@")) reader.opaque("splatting", text);
		else if (!plainVariable.test(only.text)) reader.opaque("PowerShell expression", text);
		return unknown;
	}
	if (only.type === "integer_literal" || only.type === "real_literal") {
		return { raw: text, value: text, expands: false, globs: false, tilde: false };
	}
	reader.opaque(opaqueArguments.get(only.type) ?? "PowerShell expression", text);
	return unknown;
}

/** Quote marks around a string's text, by the node holding it. */
const stringDelimiters: Readonly<Record<string, [number, number]>> = {
	verbatim_string_characters: [1, 1],
	expandable_string_literal: [1, 1],
	verbatim_here_string_characters: [2, 2],
	expandable_here_string_literal: [2, 2],
};

/** `'…'`, `"…"`, `@'…'@`, `@"…"@`: literal text, with plain variables standing for unknown values. */
function readString(reader: Reader, node: SyntaxNode): ShellWord {
	const text = node.text;
	const inner = node.children[0];
	const delimiters = inner ? stringDelimiters[inner.type] : undefined;
	const word: ShellWord = { raw: text, value: "", expands: false, globs: false, tilde: false };
	if (!inner || !delimiters || node.children.length !== 1) {
		reader.opaque("unrecognised syntax", text);
		return { ...word, value: UNKNOWN, expands: true };
	}
	let body = inner.text.slice(delimiters[0], inner.text.length - delimiters[1]);
	if (inner.type === "verbatim_string_characters") {
		word.value = body.replace(/''/g, "'");
		return word;
	}
	if (inner.type === "verbatim_here_string_characters") {
		word.value = body.replace(/^[^\n]*\n/, "").replace(/\r?\n$/, "");
		return word;
	}
	if (body.includes("`")) reader.opaque("backtick escape", text);
	// The variables, in order, stand for unknown text; anything else inside is not a plain string.
	for (const child of namedChildren(inner)) {
		if (child.type !== "variable" || !plainVariable.test(child.text)) {
			reader.opaque(opaqueArguments.get(child.type) ?? "PowerShell expression", child.text);
			return { ...word, value: UNKNOWN, expands: true };
		}
		const at = body.indexOf(child.text);
		word.value += body.slice(0, at) + UNKNOWN;
		word.expands = true;
		body = body.slice(at + child.text.length);
	}
	word.value += body;
	if (inner.type === "expandable_here_string_literal")
		word.value = word.value.replace(/^[^\n]*\n/, "").replace(/\r?\n$/, "");
	else word.value = word.value.replace(/""/g, '"');
	return word;
}

/** `> f`, `2>> f`, `*> f`: a write to the file; `2>&1`: none; `> $null`: output thrown away. */
function readRedirection(reader: Reader, node: SyntaxNode, redirections: Redirection[]): void {
	const [operatorNode, targetNode] = namedChildren(node);
	if (operatorNode?.type === "merging_redirection_operator") return;
	const operator = operatorNode?.text.trim() ?? "";
	const target = targetNode ? namedChildren(targetNode).filter((child) => child.type !== "command_argument_sep") : [];
	const first = target[0];
	if (!first || target.length !== 1) {
		reader.opaque("unrecognised syntax", node.text);
		return;
	}
	if (first.type === "array_literal_expression" && /^\$null$/i.test(first.text.trim())) return;
	const word = readArgument(reader, first);
	redirections.push({ operator: operator.endsWith(">>") ? ">>" : ">", target: word });
}
