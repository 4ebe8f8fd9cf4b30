// HTML read by `parse5` (the WHATWG parser in pure JavaScript, loaded at the first HTML file). HTML
// never fails to parse, so "a syntax error" here means what an edit can break and a reader would
// call broken: the tokenizer's errors (an unterminated tag, attribute or comment swallows what
// follows), an element never closed where its end tag is required (a deleted `</div>` re-nests the
// rest of the page), and an end tag with no element open to close (a stray `</div>`).
import { lineAndColumn, MAX_PROBLEMS, type SyntaxProblem } from "../problems.js";
import { type HtmlReading, inertSpans, type SpanNode } from "./html-inert-spans.js";

type Parse5 = typeof import("parse5");
type TagToken = Parameters<InstanceType<Parse5["Parser"]>["onEndTag"]>[0];
let parse5: Promise<Parse5> | undefined;

/** Elements whose end tag HTML lets the author leave out, and the void ones that have none. */
const END_TAG_OPTIONAL = new Set(
	"html head body p li dt dd rt rp optgroup option colgroup caption thead tbody tfoot tr td th area base br col embed hr img input link meta source track wbr".split(
		" ",
	),
);

interface LocatedNode extends SpanNode {
	childNodes?: LocatedNode[];
	content?: LocatedNode;
	sourceCodeLocation?:
		| (NonNullable<SpanNode["sourceCodeLocation"]> & {
				startTag?: { startOffset: number; endOffset: number };
				endTag?: unknown;
		  })
		| null;
}

type Problems = SyntaxProblem[] & { text?: string };

function add(problems: SyntaxProblem[], text: string, start: number, end: number, description: string): void {
	if (problems.length < MAX_PROBLEMS) problems.push({ ...lineAndColumn(text, start), offset: start, end, description });
}

/** Elements written with a start tag and never closed, where their end tag is required. */
function unclosedElements(node: LocatedNode, problems: SyntaxProblem[], text: string): void {
	for (const child of [...(node.childNodes ?? []), ...(node.content ? [node.content] : [])]) {
		const location = child.sourceCodeLocation;
		if (location?.startTag && !location.endTag && !END_TAG_OPTIONAL.has(child.nodeName)) {
			add(
				problems,
				text,
				location.startTag.startOffset,
				location.startTag.endOffset,
				`<${child.nodeName}> is never closed`,
			);
		}
		unclosedElements(child, problems, text);
	}
}

/**
 * Whether a text is a whole document (a doctype or `<html>` first, after comments), parsed as one;
 * anything else is parsed as a fragment, so a partial is not taken for a document without a doctype.
 */
function isDocument(text: string): boolean {
	let at = 0;
	for (;;) {
		while (at < text.length && /\s/.test(text[at] ?? "")) at++;
		if (!text.startsWith("<!--", at)) break;
		const end = text.indexOf("-->", at + 4);
		if (end === -1) return false;
		at = end + 3;
	}
	return /^<(!doctype|html)/i.test(text.slice(at, at + 9));
}

/** A parse5 parser that also notes end tags with no element of their name open. */
function checkingParser(module: Parse5, text: string, problems: Problems) {
	return class CheckingParser extends module.Parser<import("parse5").DefaultTreeAdapterMap> {
		override onEndTag(token: TagToken): void {
			// The stack's array keeps popped slots beyond `stackTop`.
			const { items, stackTop } = this.openElements;
			const open = items.slice(0, stackTop + 1).some((element) => (element as LocatedNode).tagName === token.tagName);
			if (!open && !END_TAG_OPTIONAL.has(token.tagName) && token.location) {
				const { startOffset, endOffset } = token.location;
				add(problems, text, startOffset, endOffset, `</${token.tagName}> closes no open <${token.tagName}>`);
			}
			super.onEndTag(token);
		}
	};
}

/** Parses an HTML text (a whole document, or a fragment such as a template partial) and lists its errors. */
export async function readHtml(text: string): Promise<HtmlReading> {
	parse5 ??= import("parse5");
	const module = await parse5;
	const problems: Problems = [];
	const options = {
		sourceCodeLocationInfo: true,
		onParseError: (error: { code: string; startOffset: number; endOffset: number }) => {
			// A document without a doctype is common and harmless to an edit.
			if (error.code === "missing-doctype") return;
			add(
				problems,
				text,
				error.startOffset,
				Math.max(error.startOffset, error.endOffset),
				error.code.replaceAll("-", " "),
			);
		},
	};
	const Parser = checkingParser(module, text, problems);
	let tree: LocatedNode;
	if (isDocument(text)) tree = Parser.parse(text, options) as unknown as LocatedNode;
	else {
		const parser = Parser.getFragmentParser(null, options);
		parser.tokenizer.write(text, true);
		tree = parser.getFragment() as unknown as LocatedNode;
	}
	unclosedElements(tree, problems, text);
	problems.sort((left, right) => left.offset - right.offset);
	const inert = inertSpans(tree, text);
	return { problems: problems.slice(0, MAX_PROBLEMS), incomplete: false, ...(inert ? { inert } : {}) };
}
