// Which grammar reads which file: those that come with the tree-sitter runtime
// (@vscode/tree-sitter-wasm), and the languages it has no grammar for by small pure JavaScript
// parsers that report positions (`readers/`): YAML, JSON, TOML, HTML; YAML, JSON and HTML check a
// change by reading only the part it touched when they can. C is read by the C++ grammar
// (which reads C). Tree-sitter's own JSON, TOML and HTML grammars come only in packages with install
// scripts or 50 MB of other grammars, which the package's install bounds rule out.
import { basename, dirname, extname } from "node:path";
import type { SyntaxReading } from "./problems.js";
import { updatedHtmlReading } from "./readers/html-inert-spans.js";
import { readHtml } from "./readers/html-reading.js";
import { readJson } from "./readers/json-reading.js";
import { updatedJsonReading } from "./readers/json-regions.js";
import type { KeptReading } from "./readers/kept-readings.js";
import { readToml } from "./readers/toml-reading.js";
import { readYaml } from "./readers/yaml-reading.js";
import { updatedYamlReading } from "./readers/yaml-regions.js";
import { type TreeSitterGrammarFile, vscodeTreeSitterGrammar } from "./tree-sitter.js";

/** How a language's files are parsed: a tree-sitter grammar, or a parser of its own. */
export type SyntaxReader =
	| { kind: "tree-sitter"; grammar: TreeSitterGrammarFile }
	| {
			kind: "parser";
			read: (text: string) => Promise<SyntaxReading>;
			/** Derives a text's reading from the file's last one without reading it all, when it can. */
			update?: (last: KeptReading, text: string) => SyntaxReading | undefined;
	  };

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
const YAML: SyntaxLanguage = {
	name: "YAML",
	reader: { kind: "parser", read: readYaml, update: (last, text) => updatedYamlReading(last, text) },
};
const JSON_STRICT: SyntaxLanguage = {
	name: "JSON",
	reader: {
		kind: "parser",
		read: (text) => readJson(text, { comments: false }),
		update: (last, text) => updatedJsonReading(last, text, { comments: false }),
	},
};
const JSON_WITH_COMMENTS: SyntaxLanguage = {
	name: "JSON with comments",
	reader: {
		kind: "parser",
		read: (text) => readJson(text, { comments: true }),
		update: (last, text) => updatedJsonReading(last, text, { comments: true }),
	},
};
const TOML: SyntaxLanguage = { name: "TOML", reader: { kind: "parser", read: readToml } };
const HTML: SyntaxLanguage = {
	name: "HTML",
	reader: { kind: "parser", read: readHtml, update: (last, text) => updatedHtmlReading(last, text) },
};

/**
 * A table of languages as a `Map`: a lookup in an object literal finds its prototype's members, so a
 * file named `toString` or `constructor` was taken for a language.
 */
function languagesBy(table: Record<string, SyntaxLanguage>): ReadonlyMap<string, SyntaxLanguage> {
	return new Map(Object.entries(table));
}

const BY_EXTENSION = languagesBy({
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
	".json": JSON_STRICT,
	".jsonc": JSON_WITH_COMMENTS,
	".toml": TOML,
	".html": HTML,
	".htm": HTML,
});

/** Files known by name rather than extension. */
const BY_NAME = languagesBy({
	".bashrc": BASH,
	".bash_profile": BASH,
	".profile": BASH,
	// Files their tools read as JSON with comments and trailing commas.
	"tsconfig.json": JSON_WITH_COMMENTS,
	"jsconfig.json": JSON_WITH_COMMENTS,
	"devcontainer.json": JSON_WITH_COMMENTS,
	".devcontainer.json": JSON_WITH_COMMENTS,
	".eslintrc.json": JSON_WITH_COMMENTS,
	".babelrc": JSON_WITH_COMMENTS,
});

/** `tsconfig.base.json`, `tsconfig.app.json`, …: read like `tsconfig.json`. */
const TSCONFIG_LIKE = /^[tj]sconfig\..+\.json$/;

/**
 * The language of a file by its name, or undefined for a file the check does not read (no grammar,
 * or a language whose files are not held to a grammar, such as Markdown).
 */
export function syntaxLanguageOf(path: string): SyntaxLanguage | undefined {
	const name = basename(path);
	// VS Code reads every JSON file of its folder (settings, tasks, launch) with comments.
	if (TSCONFIG_LIKE.test(name) || (name.endsWith(".json") && basename(dirname(path)) === ".vscode")) {
		return JSON_WITH_COMMENTS;
	}
	return BY_NAME.get(name) ?? BY_EXTENSION.get(extname(name).toLowerCase());
}
