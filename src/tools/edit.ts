import { type Static, Type } from "typebox";
import type { AgentTool, ToolDefinition } from "../engine/types.js";

const EDIT_DESCRIPTION = `Replace text in an existing file. Give \`path\`, the exact text to find (\`old_string\`) and its replacement (\`new_string\`), or several such pairs in \`edits\`.
- Copy \`old_string\` from the file as it is, with enough surrounding lines to make it unique; without \`replace_all\` it must occur exactly once.
- Small differences are tolerated and reported: line endings, trailing whitespace, curly quotes/dashes/odd spaces, a different leading indentation (new_string is re-indented to match), and line-number prefixes copied from read output.
- \`edits\` are all matched against the original file, must not overlap, and are applied all or nothing.
- Line endings and a byte-order mark of the file are kept. To create a file or replace all of it, use write.
Returns a unified diff of the changed lines.`;

const editItemSchema = Type.Object(
	{
		old_string: Type.String({ description: "The exact text to replace (copied from the file, not empty)." }),
		new_string: Type.String({ description: "The text to put in its place." }),
		replace_all: Type.Optional(
			Type.Boolean({ description: "Replace every occurrence instead of requiring exactly one. Default: false." }),
		),
	},
	{ additionalProperties: false },
);

const editSchema = Type.Object(
	{
		path: Type.String({ description: "Path of the file to edit, relative to the working directory or absolute." }),
		old_string: Type.Optional(
			Type.String({ description: "The exact text to replace (copied from the file, not empty)." }),
		),
		new_string: Type.Optional(Type.String({ description: "The text to put in its place." })),
		replace_all: Type.Optional(
			Type.Boolean({ description: "Replace every occurrence instead of requiring exactly one. Default: false." }),
		),
		edits: Type.Optional(
			Type.Array(editItemSchema, {
				description: "Several replacements in one file, applied together (instead of old_string/new_string).",
			}),
		),
	},
	{ additionalProperties: false },
);

/** Arguments of the edit tool, as validated against its schema. */
export type EditToolInput = Static<typeof editSchema>;

/** How an `old_string` was found: exactly, or by one rung of the tolerant matching ladder. */
export type EditMatchStrategy =
	| "exact"
	| "line-endings"
	| "trailing-whitespace"
	| "unicode"
	| "indentation"
	| "line-numbers";

/** Structured result of an edit, for programs and UIs. */
export interface EditToolDetails {
	/** The edited file as shown to the model (relative to cwd when inside it). */
	path: string;
	/** Unified diff of the changed regions only (never the whole file). */
	diff: string;
	/** 1-based line number of the first changed line in the new file. */
	firstChangedLine: number;
	/** Number of replaced spans in all. */
	replacements: number;
	/** The most tolerant strategy any edit needed. */
	strategy: EditMatchStrategy;
	/** The strategy of each edit, in the order given. */
	strategies: EditMatchStrategy[];
	/** Line-ending style of the file before the edit. */
	lineEnding: "lf" | "crlf" | "mixed" | "none";
	/** Whether the file starts with a UTF-8 byte-order mark (kept as it was). */
	bom: boolean;
}

/** The file-system side effects of edit, injectable to edit a remote or virtual workspace. */
export interface EditOperations {
	/** Reads the whole file. Rejects with code `ENOENT` when it does not exist, `EISDIR` for a directory. */
	readFile(absolutePath: string): Promise<Buffer>;
	/** Replaces the file's content atomically, keeping its mode; a symlink stays a link. */
	writeFile(absolutePath: string, content: Buffer): Promise<void>;
}

/** Options of the edit tool. */
export interface EditToolOptions {
	/** File-system operations. Default: the local file system with atomic writes. */
	operations?: EditOperations;
}

/** The model-facing definition of edit (name, description, schema). */
export function createEditToolDefinition(_cwd: string, _options?: EditToolOptions): ToolDefinition<typeof editSchema> {
	return {
		name: "edit",
		description: EDIT_DESCRIPTION,
		parameters: editSchema,
		annotations: {
			title: "Edit file",
			readOnlyHint: false,
			destructiveHint: true,
			idempotentHint: false,
			openWorldHint: false,
		},
	};
}

/** The runnable edit tool: exact-then-tolerant matching, atomic write, unified diff result. */
export function createEditTool(cwd: string, options?: EditToolOptions): AgentTool<typeof editSchema, EditToolDetails> {
	return {
		...createEditToolDefinition(cwd, options),
		executionMode: "sequential",
		execute: async () => {
			throw new Error("edit is not implemented yet");
		},
	};
}
