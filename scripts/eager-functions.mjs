// Part of scripts/bundle-library.mjs: marks the functions of chosen modules of a bundled file for
// V8 to compile as the file loads, not lazily inside the first call that runs them. V8 compiles a
// function literal eagerly when it stands in parentheses (the "PIFE" heuristic, on every V8 Node
// ships); the magic comment `//# allFunctionsCalledOnLoad` is not honoured by Node's loaders (V8 13.6
// follows it only when the embedder asks). So, inside a chosen module's region of the file:
// - a function or arrow expression gets parentheses;
// - a function declaration, at the file's top or directly in a function's body, becomes
//   `var name = (function name(…) {…});` at the top of that scope (after the imports or the
//   directive prologue): a declaration is callable before its line runs, the assignment at the top
//   keeps that for every statement of the scope. Across files, a declaration is callable before its
//   file runs only through an import cycle; the caller checks the files' static imports have none.
// Class members stay lazy: a method cannot be parenthesised. Positions, not names, decide: the text
// of everything else is copied as is.

/**
 * `text` (an ES module) with the functions of the modules `eager(modulePath)` chooses compiled on
 * load. A module's region starts at esbuild's `// <path>` comment line; `undefined` when the
 * TypeScript parser is not installed (the text then stays as it is).
 */
export async function eagerFunctionsText(text, eager) {
	let ts;
	try {
		ts = (await import("typescript")).default;
	} catch {
		return undefined;
	}
	const source = ts.createSourceFile("bundle.js", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
	const regions = [...text.matchAll(/^\/\/ (\S+\.[cm]?js)$/gm)].map((match) => ({
		start: match.index,
		line: match[0],
		chosen: eager(match[1]),
	}));
	const regionAt = (position) => {
		let found;
		for (const region of regions) {
			if (region.start > position) break;
			found = region;
		}
		return found;
	};
	const chosenAt = (position) => regionAt(position)?.chosen === true;
	const hoisted = (node) =>
		ts.isFunctionDeclaration(node) &&
		node.body !== undefined &&
		node.name !== undefined &&
		!node.modifiers?.some((modifier) => modifier.kind !== ts.SyntaxKind.AsyncKeyword) &&
		(ts.isSourceFile(node.parent) || (ts.isBlock(node.parent) && ts.isFunctionLike(node.parent.parent))) &&
		chosenAt(node.getStart(source));
	const wrapped = (node) =>
		(ts.isFunctionExpression(node) || ts.isArrowFunction(node)) &&
		!ts.isParenthesizedExpression(node.parent) &&
		chosenAt(node.getStart(source));

	/** The text of `node` from its first token to its end, its descendants rewritten. */
	const render = (node) => {
		// A file's text starts at 0: its first token may follow comments.
		const start = ts.isSourceFile(node) ? 0 : node.getStart(source);
		const children = [];
		ts.forEachChild(node, (child) => {
			children.push(child);
		});
		const scope = ts.isSourceFile(node) || (ts.isBlock(node) && ts.isFunctionLike(node.parent));
		const moved = [];
		let movedRegion;
		let out = "";
		let position = start;
		// The moved declarations go after the file's imports, or after `{` and the body's directives.
		let insertAt = ts.isSourceFile(node) ? 0 : 1;
		let leading = true;
		for (const child of children) {
			out += text.slice(position, child.getStart(source));
			position = child.end;
			if (scope && hoisted(child)) {
				// At the file's top, under their module's comment line again, so a profile still names it.
				const region = ts.isSourceFile(node) ? regionAt(child.getStart(source)) : undefined;
				if (region && region !== movedRegion) moved.push(region.line);
				movedRegion = region;
				moved.push(`var ${child.name.text} = (${render(child)});`);
				leading = false;
				continue;
			}
			out += wrapped(child) ? `(${render(child)})` : render(child);
			leading &&= ts.isSourceFile(node)
				? ts.isImportDeclaration(child)
				: ts.isExpressionStatement(child) && ts.isStringLiteral(child.expression);
			if (leading) insertAt = out.length;
		}
		out += text.slice(position, node.end);
		if (moved.length === 0) return out;
		return `${out.slice(0, insertAt)}\n${moved.join("\n")}\n${out.slice(insertAt)}`;
	};
	return render(source);
}
