// Reads a text with a tree-sitter grammar and lists its errors. The last tree of each file is kept
// (a few files, bounded), so the check of the next change to that file parses incrementally: the
// old tree is told where the text changed, and only that part is parsed again (a 2,000-line file:
// tens of milliseconds in full, a few incrementally).
import type { Language, Node, Parser, Point, Tree } from "@vscode/tree-sitter-wasm";
import { changedSpan } from "./changed-span.js";
import { lineAndColumn, MAX_PROBLEMS, type SyntaxProblem, type SyntaxReading } from "./problems.js";
import { loadTreeSitterLanguage, loadTreeSitterRuntime, type TreeSitterGrammarFile } from "./tree-sitter.js";

/** Trees kept for incremental parsing; each holds WebAssembly memory about the size of its text. */
const MAX_KEPT_TREES = 16;
/** Texts longer than this are not kept (the next check parses them in full). */
const MAX_KEPT_TEXT = 4 * 2 ** 20;

interface KeptTree {
	text: string;
	tree: Tree;
}

const kept = new Map<string, KeptTree>();
const parsers = new Map<Language, Parser>();

function keep(key: string, text: string, tree: Tree): void {
	const old = kept.get(key);
	if (old) {
		kept.delete(key);
		if (old.tree !== tree) old.tree.delete();
	}
	if (text.length > MAX_KEPT_TEXT) {
		tree.delete();
		return;
	}
	kept.set(key, { text, tree });
	for (const [oldest, entry] of kept) {
		if (kept.size <= MAX_KEPT_TREES) break;
		kept.delete(oldest);
		entry.tree.delete();
	}
}

function pointAt(text: string, offset: number): Point {
	const { line, column } = lineAndColumn(text, offset);
	return { row: line - 1, column: column - 1 };
}

/** The old tree, told where `before` became `after`. */
function editedCopy(tree: Tree, before: string, after: string): Tree {
	const span = changedSpan(before, after);
	const copy = tree.copy();
	copy.edit({
		startIndex: span.start,
		oldEndIndex: span.oldEnd,
		newEndIndex: span.newEnd,
		startPosition: pointAt(before, span.start),
		oldEndPosition: pointAt(before, span.oldEnd),
		newEndPosition: pointAt(after, span.newEnd),
	});
	return copy;
}

async function parserFor(grammar: TreeSitterGrammarFile): Promise<Parser> {
	const [runtime, language] = await Promise.all([loadTreeSitterRuntime(), loadTreeSitterLanguage(grammar)]);
	let parser = parsers.get(language);
	if (!parser) {
		parser = new runtime.Parser();
		parser.setLanguage(language);
		parsers.set(language, parser);
	}
	return parser;
}

/** Options of `readWithTreeSitter`. */
export interface TreeSitterReadOptions {
	/** The grammar to parse with. */
	grammar: TreeSitterGrammarFile;
	/** The file's key (its absolute path): its last tree is kept under it for the next change. */
	key: string;
	/** A text of the same file the kept tree may be of (the content before the change), to parse from. */
	from?: string;
	/** Stop parsing after this many milliseconds (the reading is then `incomplete`). */
	budgetMs: number;
}

/** Parses `text` (incrementally when a kept tree of `from` exists) and lists its errors. */
export async function readWithTreeSitter(text: string, options: TreeSitterReadOptions): Promise<SyntaxReading> {
	const parser = await parserFor(options.grammar);
	const key = `${options.grammar.package}/${options.grammar.file}\0${options.key}`;
	const known = kept.get(key);
	if (known?.text === text) return { problems: problemsOf(known.tree.rootNode), incomplete: false };
	const base = known && options.from !== undefined && known.text === options.from ? known : undefined;
	const old = base ? editedCopy(base.tree, base.text, text) : undefined;
	const deadline = performance.now() + options.budgetMs;
	let tree: Tree | null;
	try {
		parser.reset();
		tree = parser.parse(text, old, { progressCallback: () => performance.now() > deadline });
	} finally {
		old?.delete();
	}
	if (!tree) {
		parser.reset();
		return { problems: [], incomplete: true };
	}
	const problems = problemsOf(tree.rootNode);
	keep(key, text, tree);
	return { problems, incomplete: false };
}

/** The ERROR and MISSING nodes, in text order; only subtrees that hold an error are visited. */
function problemsOf(root: Node): SyntaxProblem[] {
	const problems: SyntaxProblem[] = [];
	const visit = (node: Node): void => {
		if (problems.length >= MAX_PROBLEMS) return;
		// One report per ERROR region: what is inside it is part of the same mistake.
		if (node.isMissing || node.isError) {
			problems.push(problemOf(node));
			return;
		}
		if (!node.hasError) return;
		for (let index = 0; index < node.childCount; index++) {
			const child = node.child(index);
			if (child) visit(child);
		}
	};
	visit(root);
	return problems;
}

/** Node types that a reader looks for to find a place: the definition an error is in. */
const PLACE =
	/function|method|class|struct|impl|interface|enum|module|trait|namespace|rule_set|table|element|pair|object/;

/** The nearest named node around an error, and the definition it is in when that is another node. */
function enclosingOf(node: Node): string | undefined {
	let nearest: Node | undefined;
	for (let parent = node.parent; parent?.parent; parent = parent.parent) {
		if (parent.isError || !parent.isNamed) continue;
		if (!nearest) {
			nearest = parent;
			if (PLACE.test(parent.type)) break;
			continue;
		}
		if (PLACE.test(parent.type)) return `${describeNode(nearest)} of ${describeNode(parent)}`;
	}
	return nearest ? describeNode(nearest) : undefined;
}

function describeNode(node: Node): string {
	const name = node.childForFieldName("name") ?? node.childForFieldName("key");
	const label = name && name.endIndex - name.startIndex <= 60 ? ` ${JSON.stringify(name.text)}` : "";
	const first = node.startPosition.row + 1;
	const last = node.endPosition.row + 1;
	return `${node.type}${label} (${first === last ? `line ${first}` : `lines ${first}-${last}`})`;
}

function problemOf(node: Node): SyntaxProblem {
	const at = node.startPosition;
	let description: string;
	if (node.isMissing) description = `missing ${JSON.stringify(node.type)}`;
	else {
		const text = node.text.trim();
		const firstLine = text.split("\n", 1)[0] ?? "";
		const shown = firstLine.length > 40 ? `${firstLine.slice(0, 40)}…` : firstLine;
		description = text === "" ? "unexpected end of text" : `unexpected ${JSON.stringify(shown)}`;
	}
	return {
		line: at.row + 1,
		column: at.column + 1,
		offset: node.startIndex,
		end: node.endIndex,
		description,
		enclosing: enclosingOf(node),
	};
}
