import type { Static } from "typebox";
import type { AgentTool } from "../engine/index.js";
import { DEFAULT_MAX_BYTES, isAbortError, ToolError, Type, throwIfAborted } from "../engine/index.js";
import type { FileOperations } from "../workspace/index.js";
import { callTarget, type FileToolOptions, workspaceOf } from "../workspace/index.js";
import { aliasArguments, PATH_ALIASES } from "./fs/argument-aliases.js";
import { listDirectory } from "./fs/list-directory.js";
import { fileSystemErrorMessage, notFoundError } from "./fs/messages.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

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
			description:
				"How many levels deep to list (1 = only the directory itself); implies recursive. Default: unlimited when recursive.",
		}),
	),
	limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most entries to return. Default: 500." })),
});

/** Arguments of the ls tool, as the model sends them. */
export type LsToolInput = Static<typeof lsSchema>;
/** The runnable ls tool. */
export type LsTool = AgentTool<typeof lsSchema, LsToolDetails>;

/** The side effects ls needs; same as the other file tools. */
export type LsOperations = FileOperations;

/** Options of the ls tool. */
export interface LsToolOptions extends FileToolOptions {
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

/** Entries returned when neither the call nor the options give a limit. */
const DEFAULT_LIMIT = 500;

/** The ls tool's definition: what the model sees. */
export const createLsToolDefinition = defineTool(
	{ name: "ls", title: "List directory", effect: "reads" },
	lsSchema,
	DESCRIPTION,
);

/** The ls tool: lists a directory, optionally recursively. */
export function createLsTool(cwd: string, options: LsToolOptions = {}): LsTool {
	const workspace = workspaceOf(cwd, options);
	return toolFrom(createLsToolDefinition(cwd, options), {
		prepareArguments: aliasArguments({
			path: ["dir", "directory", "folder", ...PATH_ALIASES],
			max_depth: ["maxDepth", "depth"],
		}),
		target: ({ path }) => workspace.resolveTarget({ access: "list", path: path ?? "." }),
		execute: async (_toolCallId, args, signal, _onUpdate, context) => {
			throwIfAborted(signal);
			const target = await callTarget(workspace, context?.target, { access: "list", path: args.path ?? "." });
			if (!target.resolved) {
				throw new ToolError(fileSystemErrorMessage(target.resolveError, args.path ?? ".", "list"), { path: args.path });
			}
			const { absolutePath, info, display: shown } = target.resolved;
			const operations = workspace.filesFor(target);
			if (!info) throw await notFoundError({ cwd: workspace.cwd, absolutePath, operations, noun: "Path" });
			if (info.kind !== "directory") {
				throw new ToolError(`${shown} is a file, not a directory. Use read to see its content.`, { path: shown });
			}
			const limit = args.limit ?? options.defaultLimit ?? DEFAULT_LIMIT;
			let listing: Awaited<ReturnType<typeof listDirectory>>;
			try {
				listing = await listDirectory({
					operations,
					directory: absolutePath,
					// A depth asks for recursion unless the call says otherwise.
					maxDepth:
						args.recursive === false
							? 1
							: args.recursive || args.max_depth !== undefined
								? (args.max_depth ?? Number.POSITIVE_INFINITY)
								: 1,
					limit,
					maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
					signal,
					hides: target.hides,
				});
			} catch (error) {
				if (isAbortError(error)) throw error;
				throw new ToolError(fileSystemErrorMessage(error, shown, "list"), { path: shown });
			}
			let text = listing.lines.length > 0 ? listing.lines.join("\n") : "(empty directory)";
			if (listing.withheld > 0) {
				text += `\n\n[${listing.withheld} ${listing.withheld === 1 ? "entry" : "entries"} withheld: a read deny rule hides ${listing.withheld === 1 ? "it" : "them"}.]`;
			}
			if (listing.truncatedBy === "limit") {
				const total = listing.total === undefined ? "more" : `${listing.total}`;
				text += `\n\n[Showing ${listing.lines.length} of ${total} entries (limit ${limit}). Use limit=${limit * 2} to see more, or list a subdirectory.]`;
			} else if (listing.truncatedBy === "bytes") {
				text += `\n\n[Showing ${listing.lines.length} entries: output budget of ${options.maxBytes ?? DEFAULT_MAX_BYTES} bytes reached. List a subdirectory or lower max_depth to see the rest.]`;
			}
			return {
				content: [{ type: "text", text }],
				details: {
					path: shown,
					absolutePath,
					entries: listing.lines.length,
					truncated: listing.truncatedBy !== null,
					truncatedBy: listing.truncatedBy,
					limit,
					brokenSymlinks: listing.brokenSymlinks,
				},
			};
		},
	});
}

/** The registry's entry of ls (see `ToolEntry`). */
export const lsToolEntry = toolEntry({
	name: "ls",
	definition: createLsToolDefinition,
	tool: createLsTool,
	seam: toolSeams.files,
	groups: ["readOnly", "path"],
});
