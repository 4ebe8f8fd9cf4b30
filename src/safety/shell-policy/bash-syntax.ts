/**
 * Reads a bash parse tree into the simple commands it runs — the whitelist of the shell policy.
 * A command line is plain when every part is a simple command (assignments, a name, arguments,
 * redirections) joined by pipes, `&&`, `||`, `;`, `&`, newlines, `!`, or grouped in `( … )` or
 * `{ …; }`, and every word is literal or a plain parameter expansion. Every other construct
 * (loops, `if`, `case`, functions, substitutions, `[[ … ]]` with arithmetic, a line continuation
 * inside a word, a syntax error) is reported as opaque: the rules cannot tell what it runs.
 */
import { sameHeredocEnd } from "./heredoc-delimiter.js";
import type { OpaqueConstructName } from "./opaque-constructs.js";
import { errorText, parseBash, type SyntaxNode } from "./parser.js";
import { plainWords } from "./plain-words.js";
import { type OpaqueSink, readWord, type ShellWord, translatedAt } from "./shell-words.js";

/** A redirection: `2>/dev/null`, `>> log`, `&>out`, `<in`, `<<EOF`, `<<<word`. */
export interface Redirection {
	/** The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<`, `<&`, `<<`, `<<-`, `<<<`. */
	operator: string;
	/** The word after the operator (a file, a descriptor, a here-string); undefined for heredocs. */
	target?: ShellWord;
}

/** A `NAME=value` (or `NAME[sub]=value`, `NAME+=value`) before a command or alone. */
export interface Assignment {
	/** The variable's name. */
	name: string;
	/** True when it assigns an array element (`a[i]=x`): the subscript is evaluated as arithmetic. */
	subscript: boolean;
	/** The text as written. */
	text: string;
}

/** One simple command. */
export interface SimpleCommand {
	/** The command as written, whitespace collapsed: what allow rules are matched against. */
	text: string;
	/** Assignments before the name (or alone). */
	assignments: Assignment[];
	/** The name and the arguments. */
	words: ShellWord[];
	/** Its redirections, including those of an enclosing `( … ) > f` or `{ …; } > f`. */
	redirections: Redirection[];
}

/** What a command line holds, or the first construct that makes it opaque. */
export interface BashReading {
	commands: SimpleCommand[];
	opaque?: { construct: OpaqueConstructName; text: string };
}

/** Statement nodes that only join or group other statements. */
const joiningNodes = new Set(["program", "list", "pipeline", "subshell", "compound_statement", "negated_command"]);

/** Statement nodes that are never plain, by the construct they are. */
const opaqueStatements: ReadonlyMap<string, OpaqueConstructName> = new Map([
	["for_statement", "loop"],
	["c_style_for_statement", "loop"],
	["while_statement", "loop"],
	["if_statement", "if statement"],
	["case_statement", "case statement"],
	["function_definition", "function definition"],
	["arithmetic_expansion", "arithmetic on variables"],
	["test_command", "conditional expression"],
]);

/** Test operators that evaluate a variable name or arithmetic, which may hold `a[$(cmd)]`. */
const evaluatingTestOperators = new Set(["-v", "-R"]);
/** Comparisons `[[ … ]]` evaluates as arithmetic (plain `[` compares integers only). */
const arithmeticTestOperators = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** Nodes of a test expression that hold other parts of it. */
const testExpressionNodes = new Set(["binary_expression", "unary_expression", "parenthesized_expression"]);

/** A backslash-newline between two non-blank characters: bash joins them into one word, tree-sitter does not. */
const continuationInWord = /\S\\\r?\n\S/;

interface Reader {
	reading: BashReading;
	opaque: OpaqueSink;
}

/**
 * `text` with its runs of bash's blanks (space, tab, newline) made one space and trimmed: the form
 * allow rules match. Only those: a no-break space or another Unicode space is part of a word to
 * bash (`./build.sh<NBSP>` runs another file than `./build.sh`).
 */
export function collapseBlanks(text: string): string {
	return text.replace(/^[ \t\n]+|[ \t\n]+$/g, "").replace(/[ \t\n]+/g, " ");
}

const collapse = collapseBlanks;

/**
 * Reads `command` (bash). A line of plain words (`plainWords`) is read without the parser, which
 * need not be loaded for it: one simple command of those words; any other through the parser
 * (`readParsedBash`).
 */
export function readBash(command: string): BashReading {
	const words = plainWords(command);
	if (words === undefined) return readParsedBash(command);
	const text = words.map((word) => word.raw).join(" ");
	return { commands: [{ text, assignments: [], words, redirections: [] }] };
}

/** Reads `command` (bash) through the parser, which must be loaded; parsing is bounded (see `parseBash`). */
export function readParsedBash(command: string): BashReading {
	const reading: BashReading = { commands: [] };
	const opaque: OpaqueSink = (construct, text) => {
		reading.opaque ??= { construct, text: text.length > 120 ? `${text.slice(0, 120)}…` : text };
	};
	if (continuationInWord.test(command)) opaque("line continuation in a word", command);
	// Bash never sees a NUL as the parser does: it drops it from a script it reads (`r<NUL>m` runs `rm`).
	if (command.includes("\u0000")) opaque("NUL character", command.replaceAll("\u0000", "\\0"));
	// The parser splits words at a carriage return, vertical tab or form feed; bash keeps them in the
	// word (`./build.sh<CR>` runs another file than `./build.sh`).
	if (/[\r\v\f]/.test(command)) opaque("control character", JSON.stringify(command));
	const parsed = parseBash(command);
	if (typeof parsed === "string") {
		const construct =
			parsed === "too long" ? "command too long" : parsed === "too deep" ? "nesting too deep" : "unparsed syntax";
		opaque(construct, `${command.slice(0, 60)}…`);
		return reading;
	}
	readStatement({ reading, opaque }, parsed.root, []);
	if (parsed.hasError) opaque("unparsed syntax", errorText(parsed.root) ?? command);
	return reading;
}

/** The named children of a node. */
function namedChildren(node: SyntaxNode): SyntaxNode[] {
	return node.children.filter((child) => child.isNamed);
}

/** The child filling `field`, if any. */
function fieldChild(node: SyntaxNode, field: string): SyntaxNode | undefined {
	return node.children.find((child) => child.field === field);
}

/** Reads one statement node; `outer` holds the redirections of enclosing groups. */
function readStatement(reader: Reader, node: SyntaxNode, outer: Redirection[]): void {
	const type = node.type;
	if (!node.isNamed || type === "comment") return;
	if (joiningNodes.has(type)) {
		for (const child of node.children) readStatement(reader, child, outer);
		return;
	}
	if (type === "redirected_statement") {
		readRedirected(reader, node, outer);
		return;
	}
	if (type === "command") {
		reader.reading.commands.push(readCommand(reader, node, outer));
		return;
	}
	if (type === "variable_assignment" || type === "variable_assignments") {
		const assignments = type === "variable_assignment" ? [node] : namedChildren(node);
		const command: SimpleCommand = { text: collapse(node.text), assignments: [], words: [], redirections: [...outer] };
		for (const child of assignments) command.assignments.push(readAssignment(reader, child));
		reader.reading.commands.push(command);
		return;
	}
	if (type === "declaration_command" || type === "unset_command") {
		reader.reading.commands.push(readDeclaration(reader, node, outer));
		return;
	}
	if (type === "test_command") {
		reader.reading.commands.push(readTest(reader, node, outer));
		return;
	}
	if (type === "heredoc_body") {
		readHeredocBody(reader, node);
		return;
	}
	reader.opaque(opaqueStatements.get(type) ?? "unrecognised syntax", node.text);
}

/**
 * `body > f 2>&1`. Tree-sitter hangs a redirection that ends a list or a pipeline (`a && b > f`)
 * on the whole of it; bash gives it to the last command only, as `readRedirectedBody` does.
 */
function readRedirected(reader: Reader, node: SyntaxNode, outer: Redirection[]): void {
	const redirections = [...outer];
	const extraWords: ShellWord[] = [];
	const later: SyntaxNode[] = [];
	const texts: string[] = [];
	for (const child of node.children) {
		if (child.field !== "redirect") continue;
		texts.push(firstLine(child.text));
		readRedirect(reader, child, redirections, extraWords, later);
	}
	const body = fieldChild(node, "body");
	if (body) readRedirectedBody(reader, { body, outer, redirections, extraWords, texts });
	else if (extraWords.length > 0) reader.opaque("unrecognised syntax", node.text);
	for (const statement of later) readStatement(reader, statement, outer);
}

interface RedirectedBody {
	body: SyntaxNode;
	outer: Redirection[];
	redirections: Redirection[];
	extraWords: ShellWord[];
	texts: string[];
}

function firstLine(text: string): string {
	return text.split("\n")[0] ?? "";
}

function readRedirectedBody(reader: Reader, target: RedirectedBody): void {
	const { body, outer, redirections, extraWords, texts } = target;
	if (body.type === "list" || body.type === "pipeline") {
		const children = namedChildren(body).filter((child) => child.type !== "comment");
		for (let index = 0; index < children.length - 1; index++)
			readStatement(reader, children[index] as SyntaxNode, outer);
		const last = children[children.length - 1];
		if (last) readRedirectedBody(reader, { ...target, body: last });
		return;
	}
	const before = reader.reading.commands.length;
	readStatement(reader, body, redirections);
	const command = reader.reading.commands[before];
	if (body.type !== "command" || !command) {
		// `{ …; } > f arg` is a syntax error in bash; a group's redirections need no words.
		if (extraWords.length > 0) reader.opaque("unrecognised syntax", body.text);
		return;
	}
	// `cmd >f arg`: tree-sitter hangs `arg` on the redirection; bash gives it to the command.
	command.words.push(...extraWords);
	command.text = collapse(`${firstLine(body.text)} ${texts.join(" ")}`);
}

/** A command's words, assignments and redirections. */
function readCommand(reader: Reader, node: SyntaxNode, outer: Redirection[]): SimpleCommand {
	const command: SimpleCommand = { text: collapse(node.text), assignments: [], words: [], redirections: [...outer] };
	const extraWords: ShellWord[] = [];
	const later: SyntaxNode[] = [];
	node.children.forEach((child, index) => {
		if (translatedAt(node.children, index)) reader.opaque("translated string", node.text);
		// `$`, `==` and `=~` as arguments are unnamed nodes, yet words bash passes (a file `$` may be a link).
		if (!child.isNamed) {
			if (child.field === "argument") command.words.push(readWord(child, reader.opaque));
			return;
		}
		if (child.type === "variable_assignment") command.assignments.push(readAssignment(reader, child));
		else if (child.type.endsWith("_redirect")) readRedirect(reader, child, command.redirections, extraWords, later);
		else if (child.type === "command_name") {
			const name = namedChildren(child)[0] ?? child;
			command.words.push(readWord(name, reader.opaque));
		} else if (child.type === "subshell" || child.type === "compound_statement") {
			reader.opaque("unrecognised syntax", child.text);
		} else command.words.push(readWord(child, reader.opaque));
	});
	command.words.push(...extraWords);
	for (const statement of later) readStatement(reader, statement, []);
	return command;
}

/** `NAME=value`: the value must be a readable word; a subscript is arithmetic (opaque). */
function readAssignment(reader: Reader, node: SyntaxNode): Assignment {
	const nameNode = fieldChild(node, "name") ?? namedChildren(node)[0];
	const subscript = nameNode?.type === "subscript";
	const name = subscript && nameNode ? (namedChildren(nameNode)[0]?.text ?? "") : (nameNode?.text ?? "");
	const value = fieldChild(node, "value");
	if (value) readWord(value, reader.opaque);
	return { name, subscript, text: node.text };
}

/**
 * One redirection node. A heredoc's nested statements (`cat <<EOF | sh`) are read after the
 * command; extra destination words are the command's arguments.
 */
function readRedirect(
	reader: Reader,
	node: SyntaxNode,
	redirections: Redirection[],
	extraWords: ShellWord[],
	later: SyntaxNode[],
): void {
	if (node.type === "heredoc_redirect") {
		const operator = node.children[0]?.type ?? "<<";
		redirections.push({ operator });
		const part = (type: string) => node.children.find((child) => child.type === type)?.text;
		const start = part("heredoc_start");
		const body = part("heredoc_body") ?? "";
		if (start !== undefined && !sameHeredocEnd(start, part("heredoc_end"), body, operator === "<<-"))
			reader.opaque("unrecognised syntax", firstLine(node.text));
		// Bash expands an unquoted heredoc's `…` and $[…] too; the grammar leaves them in its text.
		if (start !== undefined && !/['"\\]/.test(start)) {
			if (body.includes("`")) reader.opaque("command substitution", firstLine(node.text));
			if (body.includes("$[")) reader.opaque("arithmetic on variables", firstLine(node.text));
		}
		for (const child of namedChildren(node)) {
			if (child.type === "heredoc_body") readHeredocBody(reader, child);
			else if (child.type.endsWith("_redirect")) readRedirect(reader, child, redirections, extraWords, later);
			else if (child.type !== "heredoc_start" && child.type !== "heredoc_end") later.push(child);
		}
		return;
	}
	let operator = "";
	let target: ShellWord | undefined;
	for (const child of node.children) {
		if (!child.isNamed) {
			operator += child.type;
			continue;
		}
		if (child.type === "file_descriptor") continue;
		const word = readWord(child, reader.opaque);
		if (target === undefined) target = word;
		else extraWords.push(word);
	}
	redirections.push(target ? { operator, target } : { operator });
}

/** A heredoc's text: plain expansions are data; a substitution inside runs a command. */
function readHeredocBody(reader: Reader, node: SyntaxNode): void {
	for (const child of namedChildren(node)) {
		if (child.type === "heredoc_content") continue;
		readWord(child, reader.opaque);
	}
}

/** `export A=1 B`, `local x`, `unset a`: a command whose assignments are checked like prefix ones. */
function readDeclaration(reader: Reader, node: SyntaxNode, outer: Redirection[]): SimpleCommand {
	const command: SimpleCommand = { text: collapse(node.text), assignments: [], words: [], redirections: [...outer] };
	for (const child of node.children) {
		if (!child.isNamed) {
			if (command.words.length === 0) command.words.push(readWord(child, reader.opaque));
			continue;
		}
		if (child.type === "variable_assignment") {
			command.assignments.push(readAssignment(reader, child));
			command.words.push(readWord(fieldChild(child, "name") ?? child, reader.opaque));
		} else if (child.type === "subscript") {
			reader.opaque("array subscript", child.text);
		} else if (child.type.endsWith("_redirect")) {
			readRedirect(reader, child, command.redirections, command.words, []);
		} else command.words.push(readWord(child, reader.opaque));
	}
	return command;
}

/**
 * `[ … ]` and `[[ … ]]`: a command of the test's words. `-v NAME` and (in `[[`) arithmetic
 * comparisons evaluate their operands as code (`a[$(cmd)]`), so they are opaque.
 */
function readTest(reader: Reader, node: SyntaxNode, outer: Redirection[]): SimpleCommand {
	const command: SimpleCommand = { text: collapse(node.text), assignments: [], words: [], redirections: [...outer] };
	const double = node.children[0]?.type === "[[";
	const visit = (current: SyntaxNode): void => {
		for (const child of current.children) {
			if (testExpressionNodes.has(child.type)) {
				visit(child);
				continue;
			}
			if (child.type === "test_operator") {
				const operator = child.text;
				if (evaluatingTestOperators.has(operator) || (double && arithmeticTestOperators.has(operator))) {
					reader.opaque("conditional expression", node.text);
				}
			}
			if (child.type === "regex") {
				// Bash expands `$…` and substitutions in the pattern before matching.
				if (/[$`]/.test(child.text)) reader.opaque("conditional expression", node.text);
				command.words.push(literalRegex(child.text));
				continue;
			}
			if (child.type === "(" && !double) continue;
			command.words.push(readWord(child, reader.opaque));
		}
	};
	visit(node);
	return command;
}

function literalRegex(text: string): ShellWord {
	return { raw: text, value: text, expands: false, globs: true, tilde: false };
}
