import type { DiagnosticsDetails, DiagnosticsToolOptions } from "../../diagnostics/index.js";
import type { SyntaxCheckDetails, SyntaxCheckToolOptions } from "../../syntax/index.js";
import type { FileToolOptions } from "../../workspace/index.js";
import type { EditMatchStrategy } from "../edit/matching/match.js";

/** What apply_patch did to one file. */
export interface PatchFileDetails {
	/** The file as shown to the model (for a move: its old name). */
	path: string;
	/** Its absolute path. */
	absolutePath: string;
	/** What happened to it. */
	action: "added" | "updated" | "deleted" | "moved";
	/** For a move: the new name, as shown. */
	movedTo?: string;
	/** Lines added and removed, as counted in the diff. */
	linesAdded: number;
	linesRemoved: number;
	/** For an update: the strategy each hunk matched with (see edit). */
	strategies?: EditMatchStrategy[];
	/** For an update: whether the file starts with a byte-order mark (kept). */
	bom?: boolean;
}

/** Structured result of apply_patch. */
export interface ApplyPatchDetails extends SyntaxCheckDetails, DiagnosticsDetails {
	/** One entry per file operation, in patch order. */
	files: PatchFileDetails[];
	/** Unified diff of every changed region, cut after 1 MB. */
	diff: string;
	/** Whether `diff` was cut. */
	diffTruncated: boolean;
}

/** Options of the apply_patch tool. */
export interface ApplyPatchToolOptions extends FileToolOptions, SyntaxCheckToolOptions, DiagnosticsToolOptions {
	/** Flush each file to stable storage before its rename. Default: false. */
	flush?: boolean;
	/** Largest file a patch will load, in bytes. Default: 256 MB. */
	maxFileBytes?: number;
}
