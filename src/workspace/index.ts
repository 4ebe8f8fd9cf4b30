// The Workspace level: the contract tools and guards act through (files, shell, search, path
// resolution) and the local backend. The remote backend is its own part: `./remote/index.js`.

export { keptMode, type WriteFileAtomicResult, writeFileAtomic } from "./files/atomic-write.js";
export { holdBoundPaths, isBoundPath } from "./files/bound-paths.js";
export {
	type DirectoryEntry,
	errorCode,
	type FileInfo,
	type FileKind,
	type FileOperations,
	infoIfExists,
	isNotFound,
	type ProbedFile,
	type ReadableFile,
	type ReplaceFileOptions,
	type WriteFileOptions,
} from "./files/contract.js";
export { fileHash } from "./files/file-hash.js";
export {
	decodeLegacy,
	detectLegacyEncoding,
	encodeLegacy,
	encodingName,
	type LegacyEncoding,
	legacyAsUtf8,
	utf8AsLegacy,
} from "./files/legacy-encoding.js";
export { PROBE_MAX_BYTES, probeFiles } from "./files/probe-files.js";
export {
	CANNOT_RUN_COMMANDS,
	createMemoryWorkspace,
	MemoryFiles,
	type MemoryWorkspace,
	type MemoryWorkspaceOptions,
	noShellOperations,
} from "./memory/index.js";
export { importantLinesOfFile, withKeptLines } from "./output/scan-output-file.js";
export { collapseRuns, ImportantLines, wordyShapeOf } from "./output/semantic-tail.js";
export { canonicalPath } from "./paths/canonical-path.js";
export { editDistance, resolveExistingPath, similarNames } from "./paths/near-miss.js";
export { displayPath, expandHome, resolveToolPath, shortenedPath } from "./paths/paths.js";
export { isInsideRoot, realPathOf } from "./paths/real-path.js";
export { notRegularFileMessage, shellQuote, symlinkLoopMessage } from "./paths/special-file-messages.js";
export { visibleName } from "./paths/visible-name.js";
export { randomHex } from "./random-hex.js";
export { compileGlob } from "./search/glob-filter.js";
export { comparePaths, PathGroups, sortPaths } from "./search/sort-paths.js";
export {
	type GrepLine,
	MAX_WALKER_LINE_BYTES,
	type SearchBackendName,
	type SearchOperations,
	type SearchStream,
} from "./search/types.js";
export type {
	EscapedProcess,
	ReadDescriptor,
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellInput,
	ShellNetworkConnection,
	ShellOperations,
	ShellPrepareMoment,
	ShellRunHandle,
} from "./shell/exec-types.js";
export {
	completeUtf8Length,
	describeOutput,
	outputFilePath,
	type RenderedTail,
	renderTail,
	type ShellOutput,
	type TailBudget,
} from "./shell/output-tail.js";
export { pidInUse } from "./shell/pid-in-use.js";
export { sanitizeTerminalOutput } from "./shell/sanitize.js";
export { singleQuoted } from "./shell/single-quoted.js";
export {
	type WorkspaceUrlScheme,
	workspaceUrlForms,
	workspaceUrlFormsText,
	workspaceUrlSchemes,
} from "./url-schemes/index.js";
export {
	type CommandTarget,
	callTarget,
	carriedTarget,
	commandTarget,
	createLocalWorkspace,
	type DeclaredTarget,
	type FileToolOptions,
	isWorkspaceTarget,
	type LocalWorkspaceOptions,
	partsOfTarget,
	type ResolvedPath,
	type ResolveOptions,
	type Workspace,
	type WorkspaceTarget,
	workspaceOf,
} from "./workspace.js";
