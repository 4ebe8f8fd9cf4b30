import type { Static } from "typebox";
import type { ReadDiagnostics } from "../diagnostics/index.js";
import type { AgentTool } from "../engine/index.js";
import { isAbortError, ToolError, Type, throwIfAborted } from "../engine/index.js";
import { callTarget, workspaceOf } from "../workspace/index.js";
import { aliasArguments, PATH_ALIASES } from "./fs/argument-aliases.js";
import { fileSystemErrorMessage, notFoundError } from "./fs/messages.js";
import { readFileContent } from "./read/read-file.js";
import type { ReadOperations, ReadToolDetails, ReadToolOptions } from "./read/types.js";
import { ReadMemory, readKey, unchangedResult } from "./read/unchanged-reads.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

export type {
	ReadBinaryDetails,
	ReadImageDetails,
	ReadNotebookDetails,
	ReadOperations,
	ReadPdfDetails,
	ReadTextDetails,
	ReadToolDetails,
	ReadToolOptions,
} from "./read/types.js";

const DESCRIPTION = `Read a file from the local file system. Text comes back with line numbers (cat -n style: number, tab, line).
By default up to 2000 lines or 50 KB are returned, whichever comes first; lines longer than 2000 characters are cut. When more remains, the result ends with the exact offset to continue from.
Use offset (1-based line number) and limit (number of lines) to page through large files instead of reading them whole.
Images (PNG, JPEG, GIF, WebP) are returned as images, scaled down to fit. Binary files get a short notice instead of their bytes. To list a directory, use ls.
PDFs come back as text page by page and Jupyter notebooks (.ipynb) as their cells (source and outputs, image outputs as images): for these, offset and limit count pages or cells.
Reading the same range of an unchanged file again in a session returns a one-line notice instead of the same content; set refresh: true to get it anyway.`;

/** Arguments of the read tool. */
export const readSchema = Type.Object({
	path: Type.String({
		description: "Path of the file to read, relative to the working directory or absolute (~ allowed).",
	}),
	offset: Type.Optional(
		Type.Integer({
			minimum: 0,
			description:
				"1-based line number to start from (0 or omitted: the first line); for a PDF a page number, for a notebook a cell number.",
		}),
	),
	limit: Type.Optional(
		Type.Integer({
			minimum: 1,
			description:
				"Most lines to return (pages for a PDF, cells for a notebook). Default: 2000 lines; always within the 50 KB output budget.",
		}),
	),
	refresh: Type.Optional(
		Type.Boolean({
			description:
				"Return the content even when this range was already read in this session and is unchanged (by default such a repeat gets a one-line notice). Default: false.",
		}),
	),
});

/** Arguments of the read tool, as the model sends them. */
export type ReadToolInput = Static<typeof readSchema>;
/** The runnable read tool. */
export type ReadTool = AgentTool<typeof readSchema, ReadToolDetails>;

/** The read tool's definition: what the model sees. */
export const createReadToolDefinition = defineTool(
	{ name: "read", title: "Read file", effect: "reads" },
	readSchema,
	DESCRIPTION,
);

/** The read tool: streams a page of a text file, an image, or a notice for binary files. */
export function createReadTool(cwd: string, options: ReadToolOptions = {}): ReadTool {
	const workspace = workspaceOf(cwd, options);
	const memory = options.unchangedReads === false ? undefined : new ReadMemory();
	return toolFrom(createReadToolDefinition(cwd, options), {
		prepareArguments: aliasArguments({
			path: PATH_ALIASES,
			offset: ["start_line", "startLine", "line"],
			limit: ["max_lines", "maxLines", "line_count", "lines"],
		}),
		target: ({ path }) => workspace.resolveTarget({ access: "read", path }),
		execute: async (_toolCallId, args, signal, _onUpdate, context) => {
			throwIfAborted(signal);
			let shown = args.path;
			try {
				const target = await callTarget(workspace, context?.target, { access: "read", path: args.path });
				if (!target.resolved) throw target.resolveError;
				const { absolutePath, info, display } = target.resolved;
				const operations = workspace.filesFor(target);
				shown = display;
				if (!info) throw await notFoundError({ cwd: workspace.cwd, absolutePath, operations });
				if (info.kind === "directory") {
					throw new ToolError(`${shown} is a directory, not a file. Use ls to list its entries.`, { path: shown });
				}
				if (info.kind !== "file") {
					throw new ToolError(`${shown} is not a regular file (a device, socket or pipe); read cannot show it.`, {
						path: shown,
					});
				}
				const result = await readFileContent({
					operations,
					absolutePath,
					shownPath: shown,
					size: info.size,
					offset: args.offset,
					limit: args.limit,
					options,
					signal,
				});
				if (result.details?.kind === "text")
					prepareDiagnostics(options.diagnostics, absolutePath, info.size, operations);
				const first = result.content[0];
				if (!memory || result.details?.kind !== "text" || first?.type !== "text") return result;
				const verdict = memory.check(readKey(absolutePath, args.offset, args.limit), first.text);
				return verdict.unchanged && args.refresh !== true ? unchangedResult(result, shown, verdict.since) : result;
			} catch (error) {
				if (error instanceof ToolError || isAbortError(error)) throw error;
				throw new ToolError(fileSystemErrorMessage(error, shown, "read"), { path: shown });
			}
		},
	});
}

/** The largest file whose text a read shows a language server ahead of its first change. */
const PREPARED_FILE_MAX_BYTES = 1024 * 1024;

/**
 * A text file read that a language server checks is the likeliest next change: its server starts
 * now, in the background (nothing waits for it), and sees the file's text through the same door.
 */
function prepareDiagnostics(
	diagnostics: ReadDiagnostics | undefined,
	absolutePath: string,
	size: number,
	operations: ReadOperations,
): void {
	if (!diagnostics || size > PREPARED_FILE_MAX_BYTES || !diagnostics.handles(absolutePath)) return;
	void diagnostics.prepare(absolutePath, async () => (await operations.readFile(absolutePath)).toString("utf8"));
}

/** The registry's entry of read (see `ToolEntry`). */
export const readToolEntry = toolEntry({
	name: "read",
	definition: createReadToolDefinition,
	tool: createReadTool,
	seam: toolSeams.files,
	groups: ["coding", "readOnly", "path"],
});
