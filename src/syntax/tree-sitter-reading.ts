// Reads a text with a tree-sitter grammar and lists its errors. The last tree of each file is kept
// (a few files, bounded), so the check of the next change to that file parses incrementally: the
// old tree is told where the text changed, and only that part is parsed again (a 2,000-line file:
// tens of milliseconds in full, a few incrementally).
import type { Language, Node, Parser, Point, Tree } from "@vscode/tree-sitter-wasm";
import { monotonicMs } from "../engine/index.js";
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
	const deadline = monotonicMs() + options.budgetMs;
	let tree: Tree | null;
	try {
		parser.reset();
		tree = parser.parse(text, old, { progressCallback: () => monotonicMs() > deadline });
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
		if (node.isMissing) {
			problems.push(problemOf(node));
			return;
		}
		if (node.isError) {
			problems.push(errorProblemOf(node));
			return;
		}
		if (!node.hasError) return;
		const found = problems.length;
		for (let index = 0; index < node.childCount; index++) {
			const child = node.child(index);
			if (child) visit(child);
		}
		// The error is a token the grammar hides: C#'s `var c = a + ;` reads as an identifier holding
		// a MISSING `_identifier_token`, which no child shows.
		if (problems.length === found) problems.push(problemOf(node));
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

/** The first ERROR or MISSING node below `node`, in text order (only subtrees holding one are visited). */
function firstErrorBelow(node: Node): Node | undefined {
	for (let index = 0; index < node.childCount; index++) {
		const child = node.child(index);
		if (!child) continue;
		if (child.isError || child.isMissing) return child;
		// A hidden MISSING token (see problemsOf) shows as its visible parent holding an error.
		if (child.hasError) return firstErrorBelow(child) ?? child;
	}
	return undefined;
}

/**
 * An ERROR region, and where it goes wrong. A grammar that cannot close a construct (bash's `case`
 * without `esac`, C#'s namespace without its `}`) may wrap everything from the file's top in one
 * ERROR, whose start (1:1) says nothing. Inside it, the parser's first own complaint (a nested
 * ERROR or MISSING node) is the place; without one, the first child that is not a complete
 * statement is where the unfinished construct starts, and a region reaching the end of the text
 * is said to be unclosed. The problem keeps the region's offsets (old and new errors are told
 * apart by them) and carries the place as `located`. A region of a line or two: its start is the
 * place, and its text the best description.
 */
function errorProblemOf(region: Node): SyntaxProblem {
	const problem = problemOf(region);
	if (region.endPosition.row - region.startPosition.row < 2) return problem;
	const { located: _, ...place } = locatedIn(region);
	return { ...problem, located: place };
}

function locatedIn(region: Node): SyntaxProblem {
	const inner = firstErrorBelow(region);
	if (inner) return inner.isError ? locatedIn(inner) : problemOf(inner);
	let start: Node = region;
	for (let index = 0; index < region.childCount; index++) {
		const child = region.child(index);
		if (!child) continue;
		if (child.isNamed && !child.hasError && index < region.childCount - 1) continue;
		start = index === 0 ? region : child;
		break;
	}
	// From the line's first part: `public class Inventory`, not `class Inventory`.
	for (let index = 0; start !== region && index < region.childCount; index++) {
		const child = region.child(index);
		if (child && child.startPosition.row === start.startPosition.row) {
			start = index === 0 ? region : child;
			break;
		}
	}
	const problem = problemOf(region, start);
	const text = region.tree.rootNode.text;
	if (text.slice(region.endIndex).trim() !== "") return problem;
	const opened = firstLineOf(text.slice(start.startIndex, region.endIndex));
	return { ...problem, description: `${JSON.stringify(opened)} is not closed: the text ends before it is complete` };
}

function firstLineOf(text: string): string {
	const line = text.trim().split("\n", 1)[0] ?? "";
	return line.length > 40 ? `${line.slice(0, 40)}…` : line;
}

function problemOf(node: Node, start: Node = node): SyntaxProblem {
	const at = start.startPosition;
	let description: string;
	// A node that holds an error and has no width is missing (a hidden token inside it was).
	if (node.isMissing || (!node.isError && node.startIndex === node.endIndex)) {
		description = `missing ${JSON.stringify(node.type)}`;
	} else {
		const text = start === node ? node.text : node.tree.rootNode.text.slice(start.startIndex, node.endIndex);
		description = text.trim() === "" ? "unexpected end of text" : `unexpected ${JSON.stringify(firstLineOf(text))}`;
	}
	return {
		line: at.row + 1,
		column: at.column + 1,
		offset: start.startIndex,
		end: node.endIndex,
		description,
		enclosing: enclosingOf(node),
	};
}
