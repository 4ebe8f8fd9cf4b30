// Part of scripts/bundle-cli.mjs: makes the bundle's text pure ASCII. esbuild already escapes
// every string and plain template literal; what it leaves are the non-ASCII characters of
// regular expression literals and of String.raw templates. An ASCII file is read into a one-byte
// string (half the memory, no UTF-8 decoding), which the CLI pays for at every start.

import { parseBundle } from "./parse-bundle.mjs";

/**
 * `text` with each non-ASCII character of a regex literal written as a `\u` escape, and of a
 * String.raw template as a `${"\u…"}` substitution (String.raw inserts its value as is), or
 * undefined when one sits anywhere else (the bundle then stays UTF-8, correct but slower to load).
 */
export async function asciiBundleText(text) {
	if (!/[^\0-\x7f]/.test(text)) return text;
	const parsed = await parseBundle(text);
	if (parsed === undefined) return undefined;
	const { ts, source } = parsed;
	const spans = [];
	const visit = (node) => {
		if (ts.isRegularExpressionLiteral(node)) spans.push({ kind: "regex", node });
		else if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === "String.raw") {
			spans.push({ kind: "raw", node: node.template });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	const replacements = [];
	for (const match of text.matchAll(/[^\0-\x7f]/gu)) {
		const at = match.index;
		const span = spans.find(({ node }) => node.getStart(source) <= at && at < node.getEnd());
		if (!span) return undefined;
		const units = [...match[0]].flatMap((char) => {
			const code = char.codePointAt(0);
			return code > 0xffff ? [char.charCodeAt(0), char.charCodeAt(1)] : [code];
		});
		const escape = units.map((unit) => `\\u${unit.toString(16).padStart(4, "0")}`).join("");
		// An escaped non-ASCII character in a regex (`\…`) would become a backslash and "u…".
		if (span.kind === "regex" && text[at - 1] === "\\") return undefined;
		replacements.push({ at, length: match[0].length, with: span.kind === "regex" ? escape : `\${"${escape}"}` });
	}
	let result = "";
	let last = 0;
	for (const { at, length, with: replacement } of replacements) {
		result += text.slice(last, at) + replacement;
		last = at + length;
	}
	return result + text.slice(last);
}
