// Which grammar reads which file: those that come with the tree-sitter runtime
// (@vscode/tree-sitter-wasm), and YAML by the `yaml` package, a pure JavaScript parser that reports
// positions. C is read by the C++ grammar (which reads C). JSON, TOML and HTML have no grammar here
// yet: tree-sitter-wasms ships them (and they load), but it installs 50 MB of grammars for these
// four, which would take the package past its install-size bound.
import { basename, extname } from "node:path";
import { type TreeSitterGrammarFile, vscodeTreeSitterGrammar } from "./tree-sitter.js";

/** How a language's files are parsed. */
export type SyntaxReader = { kind: "tree-sitter"; grammar: TreeSitterGrammarFile } | { kind: "yaml" };

/** A language the syntax check knows. */
export interface SyntaxLanguage {
	/** Its name as messages show it, e.g. `"TypeScript"`. */
	name: string;
	/** How its files are parsed. */
	reader: SyntaxReader;
}

function fromVscode(name: string, grammar: Parameters<typeof vscodeTreeSitterGrammar>[0]): SyntaxLanguage {
	return { name, reader: { kind: "tree-sitter", grammar: vscodeTreeSitterGrammar(grammar) } };
}

const TYPESCRIPT = fromVscode("TypeScript", "typescript");
const TSX = fromVscode("TSX", "tsx");
const JAVASCRIPT = fromVscode("JavaScript", "javascript");
const PYTHON = fromVscode("Python", "python");
const CPP = fromVscode("C++", "cpp");
const BASH = fromVscode("Bash", "bash");
const YAML: SyntaxLanguage = { name: "YAML", reader: { kind: "yaml" } };

const BY_EXTENSION: Record<string, SyntaxLanguage> = {
	".ts": TYPESCRIPT,
	".mts": TYPESCRIPT,
	".cts": TYPESCRIPT,
	".tsx": TSX,
	// The JavaScript grammar reads JSX too.
	".js": JAVASCRIPT,
	".mjs": JAVASCRIPT,
	".cjs": JAVASCRIPT,
	".jsx": JAVASCRIPT,
	".py": PYTHON,
	".pyi": PYTHON,
	".go": fromVscode("Go", "go"),
	".rs": fromVscode("Rust", "rust"),
	".java": fromVscode("Java", "java"),
	".c": CPP,
	// A header may be C or C++: the C++ grammar reads both (C read as C++ is the safer mistake).
	".h": CPP,
	".cc": CPP,
	".cpp": CPP,
	".cxx": CPP,
	".hh": CPP,
	".hpp": CPP,
	".hxx": CPP,
	".cs": fromVscode("C#", "c-sharp"),
	".rb": fromVscode("Ruby", "ruby"),
	".php": fromVscode("PHP", "php"),
	".sh": BASH,
	".bash": BASH,
	".css": fromVscode("CSS", "css"),
	".yaml": YAML,
	".yml": YAML,
};

/** Files known by name rather than extension. */
const BY_NAME: Record<string, SyntaxLanguage> = {
	".bashrc": BASH,
	".bash_profile": BASH,
	".profile": BASH,
};

/**
 * The language of a file by its name, or undefined for a file the check does not read (no grammar,
 * or a language whose files are not held to a grammar, such as Markdown).
 */
export function syntaxLanguageOf(path: string): SyntaxLanguage | undefined {
	const name = basename(path);
	return BY_NAME[name] ?? BY_EXTENSION[extname(name).toLowerCase()];
}
