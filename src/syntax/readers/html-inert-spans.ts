// The spans of an HTML text that its parser reads as plain characters: the text of ordinary
// elements and quoted attribute values that hold no character reference and no character the
// input stream reports. A change that stays inside one such span and adds no character that could
// end it (`<` in text, the quote in a value) or be reported leaves every token outside it as it was,
// so the parse's errors are the old ones, moved by the change's length: a change of copy or of an
// attribute in a large page is checked without parsing the page again (issue 28: ≤ 5 ms for 2,000 lines).
import { changedSpan } from "../changed-span.js";
import { lineAndColumn, type SyntaxProblem, type SyntaxReading } from "../problems.js";

/** Plain spans in text order: `starts[i]`..`ends[i]` (offsets), ended by the character `closers[i]`. */
export interface InertSpans {
	starts: number[];
	ends: number[];
	closers: string[];
}

/** An HTML reading with the spans a later change may stay inside. */
export interface HtmlReading extends SyntaxReading {
	inert?: InertSpans;
}

/**
 * Characters that are not plain in any span: a character reference's start, NUL, controls and
 * noncharacters (the input stream reports them), and surrogates (kept out rather than paired).
 */
const NOT_PLAIN = /[\0-\x08\x0B\x0E-\x1F\x7F-\x9F&\r\uD800-\uDFFF\uFDD0-\uFDEF\uFFFE\uFFFF]/;

/**
 * Elements whose text the tree builder treats specially: raw text, tables, the head, and the body
 * (its text may come after `</body>`, which is an error at the text's first letter).
 */
const SPECIAL_PARENTS = new Set(
	"html head body table tbody thead tfoot tr colgroup select frameset template script style textarea title xmp iframe noembed noframes noscript plaintext".split(
		" ",
	),
);
const HTML_NAMESPACE = "http://www.w3.org/1999/xhtml";

interface Location {
	startOffset: number;
	endOffset: number;
}

/** The parts of parse5's nodes the spans are read from. */
export interface SpanNode {
	nodeName: string;
	tagName?: string;
	namespaceURI?: string;
	childNodes?: SpanNode[];
	content?: SpanNode;
	sourceCodeLocation?: (Location & { attrs?: Record<string, Location> }) | null;
}

/** Text with something besides whitespace: whitespace-only text is treated differently in some places. */
const HAS_LETTER = /[^\t\n\f\r ]/;

/**
 * Whether a text node sits in the source between its siblings: text a table moved out in front of
 * itself (foster parenting, where letters are errors) does not.
 */
function inPlace(location: Location, previous: SpanNode | undefined, next: SpanNode | undefined): boolean {
	const before = previous?.sourceCodeLocation;
	const after = next?.sourceCodeLocation;
	if (previous && (!before || before.endOffset > location.startOffset)) return false;
	return !next || (after !== null && after !== undefined && after.startOffset >= location.endOffset);
}

function isPlain(text: string, closer: string): boolean {
	return !NOT_PLAIN.test(text) && !text.includes(closer);
}

/** The plain spans of `text`, read from its parse5 tree (`root`: the document or fragment). */
export function inertSpans(root: SpanNode, text: string): InertSpans | undefined {
	// Offsets around a dropped carriage return are not worth the doubt: such texts are parsed whole.
	if (text.includes("\r")) return undefined;
	const found: { start: number; end: number; closer: string }[] = [];
	const add = (start: number, end: number, closer: string) => {
		if (isPlain(text.slice(start, end), closer)) found.push({ start, end, closer });
	};
	const visit = (node: SpanNode, textAllowed: boolean) => {
		const children = node.childNodes ?? [];
		children.forEach((child, at) => {
			const location = child.sourceCodeLocation;
			if (child.nodeName === "#text") {
				if (textAllowed && location && inPlace(location, children[at - 1], children[at + 1])) {
					const { startOffset, endOffset } = location;
					if (HAS_LETTER.test(text.slice(startOffset, endOffset))) add(startOffset, endOffset, "<");
				}
				return;
			}
			for (const attribute of Object.values(location?.attrs ?? {})) {
				const written = text.slice(attribute.startOffset, attribute.endOffset);
				const equals = written.indexOf("=");
				const quote = equals === -1 ? "" : (written.slice(equals + 1).trimStart()[0] ?? "");
				if ((quote !== '"' && quote !== "'") || !written.endsWith(quote)) continue;
				const valueStart = attribute.startOffset + written.indexOf(quote, equals) + 1;
				if (valueStart <= attribute.endOffset - 1) add(valueStart, attribute.endOffset - 1, quote);
			}
			const ordinary =
				child.namespaceURI === HTML_NAMESPACE && child.tagName !== undefined && !SPECIAL_PARENTS.has(child.tagName);
			visit(child, ordinary);
			if (child.content) visit(child.content, false);
		});
	};
	visit(root, root.nodeName === "#document-fragment");
	found.sort((left, right) => left.start - right.start);
	// A formatting element the tree builder reopens is a clone carrying the same source location.
	const unique = found.filter((span, at) => at === 0 || span.start !== found[at - 1]?.start);
	return {
		starts: unique.map((span) => span.start),
		ends: unique.map((span) => span.end),
		closers: unique.map((span) => span.closer),
	};
}

/** The index of the span holding `start`..`end`, or -1. */
function holding(spans: InertSpans, start: number, end: number): number {
	let low = 0;
	let high = spans.starts.length - 1;
	let found = -1;
	while (low <= high) {
		const middle = (low + high) >> 1;
		if ((spans.starts[middle] ?? 0) <= start) {
			found = middle;
			low = middle + 1;
		} else high = middle - 1;
	}
	return found !== -1 && (spans.ends[found] ?? -1) >= end ? found : -1;
}

/**
 * The reading of `text` derived from the reading of `last` without parsing, when the change
 * between them stays inside one plain span; undefined when it does not (then the text is parsed).
 */
export function updatedHtmlReading(
	last: { text: string; reading: HtmlReading },
	text: string,
): HtmlReading | undefined {
	const spans = last.reading.inert;
	if (!spans || last.reading.incomplete) return undefined;
	const span = changedSpan(last.text, text);
	const index = holding(spans, span.start, span.oldEnd);
	const closer = spans.closers[index] ?? "<";
	if (index === -1 || !isPlain(text.slice(span.start, span.newEnd), closer)) return undefined;
	const delta = span.newEnd - span.oldEnd;
	const changedText = text.slice(spans.starts[index], (spans.ends[index] ?? 0) + delta);
	if (closer === "<" && !HAS_LETTER.test(changedText)) return undefined;
	const problems: SyntaxProblem[] = [];
	for (const problem of last.reading.problems) {
		if (problem.offset >= span.oldEnd) {
			const offset = problem.offset + delta;
			problems.push({ ...problem, ...lineAndColumn(text, offset), offset, end: problem.end + delta });
		} else if (problem.end > span.start) return undefined;
		else problems.push(problem);
	}
	const moved = (offset: number, at: number) => (at > index ? offset + delta : offset);
	return {
		problems,
		incomplete: false,
		inert: {
			starts: spans.starts.map(moved),
			ends: spans.ends.map((end, at) => (at >= index ? end + delta : end)),
			closers: spans.closers,
		},
	};
}
