/**
 * The shell policy: what a command line runs and writes, read by a real bash parser, and how
 * permission rules match it. A whitelist: plain commands of literal words are matched against
 * the rules; everything else is opaque and matches every deny and ask rule.
 */
export { collapseBlanks } from "./bash-syntax.js";
export {
	analyzeCommand,
	type CommandAnalysis,
	type DirectoryChange,
	type OpaqueConstruct,
	type ShellDialect,
	splitCommand,
	type WriteTarget,
	writtenTargets,
} from "./command-analysis.js";
export {
	compileCommandPattern,
	compileFormPattern,
	type FormPattern,
	matchesForm,
	specifierProblem,
} from "./command-pattern.js";
export type { OpaqueConstructName } from "./opaque-constructs.js";
export {
	isShellParserLoaded,
	loadShellParser,
	loadShellParserSoon,
	MAX_PARSED_COMMAND_LENGTH,
	ShellParserNotLoaded,
} from "./parser.js";
export { isLiteral, type ShellWord, UNKNOWN } from "./shell-words.js";
