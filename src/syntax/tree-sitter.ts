// One lazy home for the tree-sitter runtime (web-tree-sitter, shipped by @vscode/tree-sitter-wasm
// as CommonJS with its .wasm beside it) and its grammars, shared by every part that parses: the
// shell policy's bash reader and the edit tools' syntax check. Nothing is loaded at import time: the
// runtime's WebAssembly (~40 ms to compile) and each grammar (~5-30 ms) are loaded at their first
// use, once per process. The package is required at run time from node_modules, never bundled: the
// CLI bundle (scripts/bundle-cli.mjs) is one file, and the runtime finds its .wasm next to its own
// script, so both the bundle and TOOLBELT_NO_BUNDLE=1 resolve the same installed files.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Language, Parser } from "@vscode/tree-sitter-wasm";
import { keepWebAssemblyOnBaselineCompiler } from "./baseline-wasm/index.js";

/** The runtime module: `Parser`, `Language`, `Query`, … as web-tree-sitter exports them. */
export type TreeSitterRuntime = typeof import("@vscode/tree-sitter-wasm");

/** The grammars that `@vscode/tree-sitter-wasm` ships (`wasm/tree-sitter-<name>.wasm`). */
export type VscodeTreeSitterGrammar =
	| "bash"
	| "c-sharp"
	| "cpp"
	| "css"
	| "go"
	| "ini"
	| "java"
	| "javascript"
	| "php"
	| "powershell"
	| "python"
	| "regex"
	| "ruby"
	| "rust"
	| "tsx"
	| "typescript";

/** Where a grammar's WebAssembly file is installed: a package and the file's path inside it. */
export interface TreeSitterGrammarFile {
	/** The installed package that holds the file, e.g. `"@vscode/tree-sitter-wasm"`. */
	package: string;
	/** The file's path inside the package, e.g. `"wasm/tree-sitter-bash.wasm"`. */
	file: string;
}

const RUNTIME_PACKAGE = "@vscode/tree-sitter-wasm";

let runtime: Promise<TreeSitterRuntime> | undefined;
const languages = new Map<string, Promise<Language>>();
let packageRequire: NodeJS.Require | undefined;

function requireFromHere(): NodeJS.Require {
	packageRequire ??= createRequire(import.meta.url);
	return packageRequire;
}

/**
 * The tree-sitter runtime, initialised once per process (its WebAssembly compiled at the first call).
 * A failed start is not remembered, so a later call tries again.
 */
export function loadTreeSitterRuntime(): Promise<TreeSitterRuntime> {
	runtime ??= startRuntime().catch((error: unknown) => {
		runtime = undefined;
		throw error;
	});
	return runtime;
}

async function startRuntime(): Promise<TreeSitterRuntime> {
	// Before the runtime's own WebAssembly is compiled: the flags apply to modules compiled later.
	keepWebAssemblyOnBaselineCompiler();
	const require = requireFromHere();
	const module = require(RUNTIME_PACKAGE) as TreeSitterRuntime;
	const folder = dirname(require.resolve(RUNTIME_PACKAGE));
	await module.Parser.init({ locateFile: (file: string) => join(folder, file) });
	return module;
}

/** The file of a grammar that `@vscode/tree-sitter-wasm` ships. */
export function vscodeTreeSitterGrammar(name: VscodeTreeSitterGrammar): TreeSitterGrammarFile {
	return { package: RUNTIME_PACKAGE, file: `wasm/tree-sitter-${name}.wasm` };
}

/** The absolute path of an installed grammar file (throws when its package is not installed). */
export function treeSitterGrammarPath(grammar: TreeSitterGrammarFile): string {
	return requireFromHere().resolve(`${grammar.package}/${grammar.file}`);
}

/**
 * A grammar, loaded once per process (the runtime first, when not yet started). A failed load is
 * not remembered.
 */
export function loadTreeSitterLanguage(grammar: TreeSitterGrammarFile): Promise<Language> {
	const key = `${grammar.package}/${grammar.file}`;
	let language = languages.get(key);
	if (!language) {
		language = loadTreeSitterRuntime()
			.then((module) => module.Language.load(treeSitterGrammarPath(grammar)))
			.catch((error: unknown) => {
				languages.delete(key);
				throw error;
			});
		languages.set(key, language);
	}
	return language;
}

/**
 * A new parser for a grammar. Parsers hold WebAssembly memory outside the JavaScript heap: keep one
 * for reuse, and call `delete()` on one you drop.
 *
 * @example
 * const parser = await createTreeSitterParser(vscodeTreeSitterGrammar("bash"));
 * const tree = parser.parse("echo hi | wc -c");
 * tree?.rootNode.hasError; // false
 * tree?.delete();
 */
export async function createTreeSitterParser(grammar: TreeSitterGrammarFile): Promise<Parser> {
	const [module, language] = await Promise.all([loadTreeSitterRuntime(), loadTreeSitterLanguage(grammar)]);
	const parser = new module.Parser();
	parser.setLanguage(language);
	return parser;
}
