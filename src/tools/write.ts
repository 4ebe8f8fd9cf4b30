import { type Static, Type } from "typebox";
import type { AgentTool, ToolDefinition } from "../engine/types.js";
import type { FileOperations } from "./fs/operations.js";

const DESCRIPTION = `Write a file: creates it, or replaces its whole content. Parent directories are created as needed.
The write is atomic (a temp file renamed into place), keeps a symlink a symlink and keeps an existing file's permissions.
Prefer edit for changing part of an existing file; read a file before replacing it.`;

/** Arguments of the write tool. */
export const writeSchema = Type.Object({
	path: Type.String({
		description: "Path of the file to write, relative to the working directory or absolute (~ allowed).",
	}),
	content: Type.String({ description: "The complete new content of the file." }),
});

/** Arguments of the write tool, as the model sends them. */
export type WriteToolInput = Static<typeof writeSchema>;

/** The side effects write needs; same as the other file tools. */
export type WriteOperations = FileOperations;

/** Options of the write tool. */
export interface WriteToolOptions {
	/** File access. Default: `localFileOperations`. */
	operations?: WriteOperations;
	/** Flush data to stable storage before the rename. Default: false. */
	flush?: boolean;
}

/** Structured result of a write. */
export interface WriteToolDetails {
	/** The path as shown to the model (relative to cwd when inside it). */
	path: string;
	/** The file actually written (the final target when `path` is a symlink). */
	absolutePath: string;
	/** True when the file did not exist before; false when it was replaced. */
	created: boolean;
	/** UTF-8 bytes written. */
	bytes: number;
	/** Lines written (`"a\nb\n"` is 2 lines). */
	lines: number;
}

/** The write tool's definition: what the model sees. */
export function createWriteToolDefinition(
	_cwd: string,
	_options?: WriteToolOptions,
): ToolDefinition<typeof writeSchema> {
	return {
		name: "write",
		description: DESCRIPTION,
		parameters: writeSchema,
		annotations: {
			title: "Write file",
			readOnlyHint: false,
			destructiveHint: true,
			idempotentHint: true,
			openWorldHint: false,
		},
	};
}

/** The write tool: atomically creates or replaces a file. */
export function createWriteTool(
	cwd: string,
	options: WriteToolOptions = {},
): AgentTool<typeof writeSchema, WriteToolDetails> {
	return {
		...createWriteToolDefinition(cwd, options),
		executionMode: "sequential",
		execute: async () => {
			throw new Error("write is not implemented yet.");
		},
	};
}
