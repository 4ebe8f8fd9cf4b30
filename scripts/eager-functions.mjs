// Part of scripts/bundle-library.mjs: marks chosen functions of a bundled file for V8 to compile
// as the file loads, not lazily inside the first call that runs them. V8 compiles a function
// literal eagerly when it stands in parentheses (the "PIFE" heuristic, on every V8 Node ships); the
// magic comment `//# allFunctionsCalledOnLoad` is not honoured by Node's loaders (V8 13.6 follows
// it only when the embedder asks). So, for a chosen function:
// - a function or arrow expression gets parentheses; an arrow that reads no `this`, `arguments`,
//   `super` or `new.target` becomes a function expression first (older V8s compile no arrow eagerly);
// - a function declaration, at the file's top or directly in a function's body, becomes
//   `var name = (function name(…) {…});` at the top of that scope (after the imports or the
//   directive prologue): a declaration is callable before its line runs, the assignment at the top
//   keeps that for every statement of the scope. Across files, a declaration is callable before its
//   file runs only through an import cycle; the caller checks the files' static imports have none.
// Class members stay lazy: a method cannot be parenthesised. The text of everything else is copied
// as is.

import { parseBundle } from "./parse-bundle.mjs";

/**
 * The name a function is chosen by within its module: its own, else the variable, property or
 * assignment target it is the value of; undefined for an anonymous one (a callback), which goes
 * with the function around it.
 */
export function functionKey(ts, node) {
	if (ts.isConstructorDeclaration(node)) return "constructor";
	if (node.name !== undefined) return node.name.getText();
	let parent = node.parent;
	while (ts.isParenthesizedExpression(parent)) parent = parent.parent;
	if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
		return parent.name.getText();
	}
	if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
		return parent.left.getText();
	}
	return undefined;
}

/** esbuild's `// <path>` comment lines, where each module's part of a bundled file starts. */
export function moduleRegions(text) {
	return [...text.matchAll(/^\/\/ (\S+\.[cm]?js)$/gm)].map((match) => ({
		start: match.index,
		line: match[0],
		module: match[1],
	}));
}

/**
 * `text` (an ES module) with the functions `chosen(modulePath)` names compiled on load:
 * `chosen` gives a module's set of function keys (`functionKey`) or undefined. An anonymous
 * function is chosen with the function it is written in. `undefined` when the TypeScript parser is
 * not installed (the text then stays as it is).
 */
export async function eagerFunctionsText(text, chosen) {
	const parsed = await parseBundle(text);
	if (parsed === undefined) return undefined;
	const { ts, source } = parsed;
	const regions = moduleRegions(text).map((region) => ({ ...region, keys: chosen(region.module) }));
	const regionAt = (position) => {
		let found;
		for (const region of regions) {
			if (region.start > position) break;
			found = region;
		}
		return found;
	};
	const isChosen = (node) => {
		const key = functionKey(ts, node);
		if (key !== undefined) return regionAt(node.getStart(source))?.keys?.has(key) === true;
		let outer = node.parent;
		while (outer && !ts.isFunctionLike(outer)) outer = outer.parent;
		return outer !== undefined && isChosen(outer);
	};
	const hoisted = (node) =>
		ts.isFunctionDeclaration(node) &&
		node.body !== undefined &&
		node.name !== undefined &&
		!node.modifiers?.some((modifier) => modifier.kind !== ts.SyntaxKind.AsyncKeyword) &&
		(ts.isSourceFile(node.parent) || (ts.isBlock(node.parent) && ts.isFunctionLike(node.parent.parent))) &&
		isChosen(node);
	const wrapped = (node) =>
		(ts.isFunctionExpression(node) || ts.isArrowFunction(node)) &&
		!ts.isParenthesizedExpression(node.parent) &&
		isChosen(node);

	/** Whether code reads what only an arrow takes from around it: `this`, `arguments`, `super`, `new.target`. */
	const needsArrow = (node) => {
		let found = false;
		const visit = (child) => {
			found ||=
				child.kind === ts.SyntaxKind.ThisKeyword ||
				child.kind === ts.SyntaxKind.SuperKeyword ||
				ts.isMetaProperty(child) ||
				(ts.isIdentifier(child) && child.text === "arguments");
			if (!found) ts.forEachChild(child, visit);
		};
		visit(node);
		return found;
	};
	/**
	 * A chosen function's text for its parentheses. An arrow that needs nothing of an arrow's is
	 * written as a function expression: V8 before 13 (Node 20 and 22) compiles a parenthesised arrow
	 * lazily all the same, and 13.6 an async one.
	 */
	const eagerForm = (node) => {
		if (!ts.isArrowFunction(node) || needsArrow(node)) return render(node);
		const isAsync = node.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword);
		const parameters = node.parameters.map(render).join(", ");
		const body = ts.isBlock(node.body) ? render(node.body) : `{\n  return ${render(node.body)};\n}`;
		return `${isAsync ? "async " : ""}function(${parameters}) ${body}`;
	};

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
			out += wrapped(child) ? `(${eagerForm(child)})` : render(child);
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
