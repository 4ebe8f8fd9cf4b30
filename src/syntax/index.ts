export {
	checkSyntaxChange,
	MAX_CHECKED_TEXT,
	type SyntaxChange,
	type SyntaxCheckMode,
	type SyntaxVerdict,
} from "./check-change.js";
export {
	type GuardedFile,
	guardSyntax,
	type SyntaxCheckedFile,
	type SyntaxGuardOptions,
	type SyntaxGuardResult,
} from "./guard.js";
export { type SyntaxLanguage, syntaxLanguageOf } from "./languages.js";
export type { SyntaxProblem } from "./problems.js";
export {
	allowSyntaxErrorsParameter,
	isSyntaxChecked,
	type SyntaxCheckDetails,
	type SyntaxCheckToolOptions,
} from "./tool-fields.js";
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
