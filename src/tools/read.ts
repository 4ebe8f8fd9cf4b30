import { type Static, Type } from "typebox";
import { isAbortError, ToolError, throwIfAborted } from "../engine/errors.js";
import type { AgentTool, ToolDefinition } from "../engine/types.js";
import { aliasArguments, PATH_ALIASES } from "./fs/argument-aliases.js";
import { fileSystemErrorMessage, notFoundError } from "./fs/messages.js";
import { resolveExistingPath } from "./fs/near-miss.js";
import { type FileOperations, localFileOperations } from "./fs/operations.js";
import { displayPath } from "./fs/paths.js";
import { readFileContent } from "./read/read-file.js";

const DESCRIPTION = `Read a file from the local file system. Text comes back with line numbers (cat -n style: number, tab, line).
By default up to 2000 lines or 50 KB are returned, whichever comes first; lines longer than 2000 characters are cut. When more remains, the result ends with the exact offset to continue from.
Use offset (1-based line number) and limit (number of lines) to page through large files instead of reading them whole.
Images (PNG, JPEG, GIF, WebP) are returned as images, scaled down to fit. Binary files get a short notice instead of their bytes. To list a directory, use ls.`;

/** Arguments of the read tool. */
export const readSchema = Type.Object({
	path: Type.String({
		description: "Path of the file to read, relative to the working directory or absolute (~ allowed).",
	}),
	offset: Type.Optional(
		Type.Integer({ minimum: 0, description: "1-based line number to start from (0 or omitted: the first line)." }),
	),
	limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most lines to return. Default: 2000." })),
});

/** Arguments of the read tool, as the model sends them. */
export type ReadToolInput = Static<typeof readSchema>;

/** The side effects read needs; same as the other file tools. */
export type ReadOperations = FileOperations;

/** Options of the read tool. */
export interface ReadToolOptions {
	/** File access. Default: `localFileOperations`. */
	operations?: ReadOperations;
	/** Lines per page when the call gives no `limit` (a larger `limit` is allowed; the byte budget still applies). Default: 2000. */
	maxLines?: number;
	/** Most UTF-8 bytes of numbered text per page. Default: 50 KB. */
	maxBytes?: number;
	/** Lines longer than this many characters are cut with a marker. Default: 2000. */
	maxLineLength?: number;
	/** Return images as image blocks; when false, an image gets a text notice. Default: true. */
	images?: boolean;
	/** Widest image returned, in pixels; larger ones are scaled down. Default: 2000. */
	imageMaxWidth?: number;
	/** Tallest image returned, in pixels; larger ones are scaled down. Default: 2000. */
	imageMaxHeight?: number;
	/** Largest image returned, as base64 characters; larger ones are re-encoded smaller. Default: 4.5 MB. */
	imageMaxBase64Bytes?: number;
}

/** Structured result of a text read. */
export interface ReadTextDetails {
	kind: "text";
	/** The path as shown to the model (relative to cwd when inside it). */
	path: string;
	/** The absolute path that was read (after near-miss name resolution). */
	absolutePath: string;
	/** First line shown (1-based); 0 for an empty file. */
	startLine: number;
	/** Last line shown (1-based); 0 for an empty file. */
	endLine: number;
	/** Lines in the file, when known (the read reached the end, or counting the rest was cheap). */
	totalLines: number | undefined;
	/** File size in bytes. */
	size: number;
	/** True when lines remain after `endLine`. */
	truncated: boolean;
	/** Which limit ended the page: the line count (`limit` or the default), the byte budget, or null. */
	truncatedBy: "lines" | "bytes" | null;
	/** The `offset` that continues the read, when `truncated`. */
	nextOffset: number | undefined;
	/** How many shown lines were cut for being longer than `maxLineLength`. */
	longLinesCut: number;
}

/** Structured result of an image read. */
export interface ReadImageDetails {
	kind: "image";
	path: string;
	absolutePath: string;
	/** MIME type of the image returned (may differ from the file's when re-encoded). */
	mimeType: string;
	/** File size in bytes. */
	size: number;
	/** Pixel size of the file, when it could be read. */
	originalWidth: number | undefined;
	originalHeight: number | undefined;
	/** Pixel size of the image returned (undefined when none was returned). */
	width: number | undefined;
	height: number | undefined;
	/** True when the image was scaled or re-encoded to fit the limits. */
	resized: boolean;
	/** False when no image block could be returned within the limits (a text notice says why). */
	included: boolean;
}

/** Structured result of a binary (or non-UTF-8) file read: only a notice is returned. */
export interface ReadBinaryDetails {
	kind: "binary";
	path: string;
	absolutePath: string;
	/** Detected MIME type, when the bytes name one. */
	mimeType: string | undefined;
	/** File size in bytes. */
	size: number;
	/** Why the file is not shown as text. */
	reason: "nul-byte" | "invalid-utf8" | "known-binary-type";
}

/** Details of a read result. */
export type ReadToolDetails = ReadTextDetails | ReadImageDetails | ReadBinaryDetails;

/** The read tool's definition: what the model sees. */
export function createReadToolDefinition(_cwd: string, _options?: ReadToolOptions): ToolDefinition<typeof readSchema> {
	return {
		name: "read",
		description: DESCRIPTION,
		parameters: readSchema,
		annotations: {
			title: "Read file",
			readOnlyHint: true,
			destructiveHint: false,
			idempotentHint: true,
			openWorldHint: false,
		},
	};
}

/** The read tool: streams a page of a text file, an image, or a notice for binary files. */
export function createReadTool(
	cwd: string,
	options: ReadToolOptions = {},
): AgentTool<typeof readSchema, ReadToolDetails> {
	return {
		...createReadToolDefinition(cwd, options),
		executionMode: "parallel",
		prepareArguments: aliasArguments({
			path: PATH_ALIASES,
			offset: ["start_line", "startLine", "line"],
			limit: ["max_lines", "maxLines", "line_count", "lines"],
		}),
		execute: async (_toolCallId, args, signal) => {
			throwIfAborted(signal);
			const operations = options.operations ?? localFileOperations;
			let shown = args.path;
			try {
				const { absolutePath, info } = await resolveExistingPath(cwd, args.path, operations);
				shown = displayPath(cwd, absolutePath);
				if (!info) throw await notFoundError({ cwd, absolutePath, operations });
				if (info.kind === "directory") {
					throw new ToolError(`${shown} is a directory, not a file. Use ls to list its entries.`, { path: shown });
				}
				if (info.kind !== "file") {
					throw new ToolError(`${shown} is not a regular file (a device, socket or pipe); read cannot show it.`, {
						path: shown,
					});
				}
				return await readFileContent({
					operations,
					absolutePath,
					shownPath: shown,
					size: info.size,
					offset: args.offset,
					limit: args.limit,
					options,
					signal,
				});
			} catch (error) {
				if (error instanceof ToolError || isAbortError(error)) throw error;
				throw new ToolError(fileSystemErrorMessage(error, shown, "read"), { path: shown });
			}
		},
	};
}
