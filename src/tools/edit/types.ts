// The edit tool's public types, here so the helpers in edit/ need not import edit.ts (which imports them).

import type { DiagnosticsDetails, DiagnosticsToolOptions } from "../../diagnostics/index.js";
import type { SyntaxCheckDetails, SyntaxCheckToolOptions } from "../../syntax/index.js";
import type { FileOperations, FileToolOptions } from "../../workspace/index.js";
import type { EditMatchStrategy } from "./matching/match.js";

/**
 * The arguments `runEdit` reads. `EditToolInput` (edit.ts, from the schema) is what the tool
 * receives; the compiler checks at `createEditTool` that it fits this shape.
 */
export interface EditArguments {
	/** Path of the file to edit. */
	path: string;
	/** The text to replace (with `new_string`). */
	old_string?: string;
	/** The text to put in its place. */
	new_string?: string;
	/** Replace every occurrence of `old_string`. Default: false. */
	replace_all?: boolean;
	/** Several replacements, applied together. */
	edits?: readonly { old_string: string; new_string: string; replace_all?: boolean }[];
	/** Apply the change even if it leaves a file that parses with syntax errors. Default: false. */
	allow_syntax_errors?: boolean;
}

/** Structured result of an edit, for programs and UIs. */
export interface EditToolDetails extends SyntaxCheckDetails, DiagnosticsDetails {
	/** The edited file as shown to the model (relative to cwd when inside it). */
	path: string;
	/** The absolute path of the edited file (the path given, not a symlink's target). */
	absolutePath: string;
	/** Unified diff of the changed regions only (never the whole file), cut after 1 MB. */
	diff: string;
	/** Whether `diff` was cut at 1 MB (a huge replace_all); the file itself holds every change. */
	diffTruncated: boolean;
	/** 1-based line number of the first changed line in the new file. */
	firstChangedLine: number;
	/** Number of replaced spans in all. */
	replacements: number;
	/** The most tolerant strategy any edit needed. */
	strategy: EditMatchStrategy;
	/** The strategy of each edit, in the order given. */
	strategies: EditMatchStrategy[];
	/** Whether the file starts with a UTF-8 byte-order mark (kept as it was). */
	bom: boolean;
	/** Lines added and removed, as counted in the diff. */
	linesAdded: number;
	linesRemoved: number;
}

/** The side effects edit needs; the same as the other file tools. */
export type EditOperations = FileOperations;

/** Options of the edit tool. */
export interface EditToolOptions extends FileToolOptions, SyntaxCheckToolOptions, DiagnosticsToolOptions {
	/** Flush data to stable storage before the atomic rename. Default: false (as editors and `sed -i`). */
	flush?: boolean;
	/** Largest file edit will load, in bytes; larger files are refused with a hint. Default: 256 MB. */
	maxFileBytes?: number;
}
