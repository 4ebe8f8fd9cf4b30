import { type Static, Type } from "typebox";
import type { AgentTool, ToolDefinition } from "../engine/types.js";
import type { FileOperations } from "./fs/operations.js";

const DESCRIPTION = `List a directory: one entry per line, sorted, "/" after directories, dotfiles included, symlinks shown with their target (broken ones marked).
With recursive, lists subdirectories too (paths relative to the listed directory), down to max_depth levels. At most limit entries (default 500); the result says when entries were left out.`;

/** Arguments of the ls tool. */
export const lsSchema = Type.Object({
	path: Type.Optional(
		Type.String({
			description: "Directory to list, relative to the working directory or absolute. Default: the working directory.",
		}),
	),
	recursive: Type.Optional(Type.Boolean({ description: "Also list the contents of subdirectories. Default: false." })),
	max_depth: Type.Optional(
		Type.Integer({
			minimum: 1,
			description: "With recursive: how many levels deep to list (1 = only the directory itself). Default: unlimited.",
		}),
	),
	limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most entries to return. Default: 500." })),
});

/** Arguments of the ls tool, as the model sends them. */
export type LsToolInput = Static<typeof lsSchema>;

/** The side effects ls needs; same as the other file tools. */
export type LsOperations = FileOperations;

/** Options of the ls tool. */
export interface LsToolOptions {
	/** File access. Default: `localFileOperations`. */
	operations?: LsOperations;
	/** Entries returned when the call gives no `limit`. Default: 500. */
	defaultLimit?: number;
	/** Most UTF-8 bytes of output. Default: 50 KB. */
	maxBytes?: number;
}

/** Structured result of a listing. */
export interface LsToolDetails {
	/** The directory as shown to the model (relative to cwd when inside it). */
	path: string;
	/** The absolute directory listed. */
	absolutePath: string;
	/** Entries shown. */
	entries: number;
	/** True when entries were left out (by `limit` or the byte budget). */
	truncated: boolean;
	/** Which limit left entries out, or null. */
	truncatedBy: "limit" | "bytes" | null;
	/** The entry limit that applied. */
	limit: number;
	/** Broken symlinks among the entries shown. */
	brokenSymlinks: number;
}

/** The ls tool's definition: what the model sees. */
export function createLsToolDefinition(_cwd: string, _options?: LsToolOptions): ToolDefinition<typeof lsSchema> {
	return {
		name: "ls",
		description: DESCRIPTION,
		parameters: lsSchema,
		annotations: {
			title: "List directory",
			readOnlyHint: true,
			destructiveHint: false,
			idempotentHint: true,
			openWorldHint: false,
		},
	};
}

/** The ls tool: lists a directory, optionally recursively. */
export function createLsTool(cwd: string, options: LsToolOptions = {}): AgentTool<typeof lsSchema, LsToolDetails> {
	return {
		...createLsToolDefinition(cwd, options),
		executionMode: "parallel",
		execute: async () => {
			throw new Error("ls is not implemented yet.");
		},
	};
}
