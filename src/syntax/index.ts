export {
	createTreeSitterParser,
	loadTreeSitterLanguage,
	loadTreeSitterRuntime,
	type TreeSitterGrammarFile,
	type TreeSitterRuntime,
	treeSitterGrammarPath,
	type VscodeTreeSitterGrammar,
	vscodeTreeSitterGrammar,
} from "./tree-sitter.js";
