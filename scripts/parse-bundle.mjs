// Part of the bundling scripts: the one way they read a bundled file's syntax. TypeScript's parser
// is a development dependency, so an install without it gets undefined and leaves the file as is.

/**
 * `{ ts, source }`: the TypeScript module and `text` parsed as JavaScript with parent links, or
 * undefined when the parser is not installed.
 */
export async function parseBundle(text) {
	let ts;
	try {
		ts = (await import("typescript")).default;
	} catch {
		return undefined;
	}
	return { ts, source: ts.createSourceFile("bundle.js", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS) };
}
