import type { Static } from "typebox";
import { type DiagnosticsDetails, type DiagnosticsToolOptions, diagnoseChanges } from "../diagnostics/index.js";
import type { AgentTool } from "../engine/index.js";
import { countLines, isAbortError, ToolError, Type, throwIfAborted, withFileMutationQueue } from "../engine/index.js";
import {
	allowSyntaxErrorsParameter,
	guardSyntax,
	isSyntaxChecked,
	type SyntaxCheckDetails,
	type SyntaxCheckToolOptions,
} from "../syntax/index.js";
import type { FileOperations } from "../workspace/index.js";
import {
	carriedTarget,
	type FileToolOptions,
	type WorkspaceTarget,
	workspaceOf,
	writeFileAtomic,
} from "../workspace/index.js";
import { aliasArguments, PATH_ALIASES } from "./fs/argument-aliases.js";
import { inPlaceNotice } from "./fs/in-place-notice.js";
import { fileSystemErrorMessage } from "./fs/messages.js";
import { encodeLikeExisting } from "./fs/write-encoding.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

const DESCRIPTION = `Write a file: creates it, or replaces its whole content. Parent directories are created as needed.
The write is atomic (a temp file renamed into place), keeps a symlink a symlink and keeps an existing file's permissions and encoding (a hard-linked file, or one in a read-only folder, is overwritten in place; the result says so).
Prefer edit for changing part of an existing file; read a file before replacing it.`;

/** Arguments of the write tool. */
export const writeSchema = Type.Object({
	path: Type.String({
		description: "Path of the file to write, relative to the working directory or absolute (~ allowed).",
	}),
	content: Type.String({ description: "The complete new content of the file." }),
	allow_syntax_errors: allowSyntaxErrorsParameter,
});

/** Arguments of the write tool, as the model sends them. */
export type WriteToolInput = Static<typeof writeSchema>;
/** The runnable write tool. */
export type WriteTool = AgentTool<typeof writeSchema, WriteToolDetails>;

/** The side effects write needs; same as the other file tools. */
export type WriteOperations = FileOperations;

/** Options of the write tool. */
export interface WriteToolOptions extends FileToolOptions, SyntaxCheckToolOptions, DiagnosticsToolOptions {
	/** Flush data to stable storage before the rename. Default: false. */
	flush?: boolean;
}

/** Structured result of a write. */
export interface WriteToolDetails extends SyntaxCheckDetails, DiagnosticsDetails {
	/** The path as shown to the model (relative to cwd when inside it). */
	path: string;
	/** The file actually written (the final target when `path` is a symlink). */
	absolutePath: string;
	/** True when the file did not exist before; false when it was replaced. */
	created: boolean;
	/** Bytes written (UTF-8, or the kept legacy encoding). */
	bytes: number;
	/** Lines written (`"a\nb\n"` is 2 lines). */
	lines: number;
}

/** The write tool's definition: what the model sees. */
export const createWriteToolDefinition = defineTool(
	{ name: "write", title: "Write file", effect: "writes", idempotent: true },
	writeSchema,
	DESCRIPTION,
);

/** The write tool: atomically creates or replaces a file. */
export function createWriteTool(cwd: string, options: WriteToolOptions = {}): WriteTool {
	const workspace = workspaceOf(cwd, options);
	return toolFrom(createWriteToolDefinition(cwd, options), {
		prepareArguments: aliasArguments({ path: PATH_ALIASES, content: ["contents", "file_text", "text", "data"] }),
		target: ({ path }, context) => workspace.resolveTarget({ access: "write", path }, { lookups: context?.lookups }),
		execute: (_toolCallId, { path, content, allow_syntax_errors }, signal, _onUpdate, context) => {
			const declared = { access: "write", path } as const;
			const input = { content, allowSyntaxErrors: allow_syntax_errors };
			// Resolved already (a call through the engine): its key takes the place in line at once.
			const carried = carriedTarget(workspace, context?.target, declared);
			if (carried) {
				const key = carried.resolved?.key ?? workspace.lexicalPath(path.trim());
				return withFileMutationQueue(key, () => writeTarget(carried, input, signal, options), { key });
			}
			const lexical = workspace.lexicalPath(path.trim());
			const target = workspace.resolveTarget(declared);
			// The place in line is taken now, in call order, even though the key is still being resolved.
			const key = target.then((resolved) => resolved.resolved?.key ?? lexical);
			return withFileMutationQueue(lexical, async () => writeTarget(await target, input, signal, options), { key });
		},
	});
}

/** What a syntax check or diagnostics that did not run add to a result (one object, only read). */
const NOTHING_FOUND: { readonly notes: readonly string[]; readonly files: never[] } = { notes: [], files: [] };

/** The notes of the syntax check and diagnostics, each on a line of its own after the result's first. */
function notesText(syntax: readonly string[], diagnostics: readonly string[]): string {
	if (syntax.length === 0 && diagnostics.length === 0) return "";
	return [...syntax, ...diagnostics].map((note) => `\n${note}`).join("");
}

async function writeTarget(
	target: WorkspaceTarget,
	input: { content: string; allowSyntaxErrors: boolean | undefined },
	signal: AbortSignal | undefined,
	options: WriteToolOptions,
): Promise<{ content: { type: "text"; text: string }[]; details: WriteToolDetails }> {
	throwIfAborted(signal);
	const { content } = input;
	const { workspace, resolved } = target;
	const path = target.path ?? "";
	if (!resolved) throw new ToolError(fileSystemErrorMessage(target.resolveError, path, "write"), { path });
	// An existing file whose name differs only invisibly (NBSP, NFD) is the one meant: `resolve` found it.
	const { absolutePath, display: shown } = resolved;
	let result: Awaited<ReturnType<typeof writeFileAtomic>>;
	const operations = workspace.filesFor(target);
	// Nothing was there when the call was resolved (a moment ago): a new file is UTF-8, no need to look again.
	const encoded = resolved.info
		? await encodeLikeExisting(operations, absolutePath, content)
		: { data: content, note: undefined };
	// The old content only for a file whose syntax or diagnostics are checked (a failed read: judged as a new file).
	const checked = isSyntaxChecked(absolutePath, options.syntaxCheck);
	const before =
		resolved.info && (checked || options.diagnostics?.handles(absolutePath))
			? await operations.readFile(absolutePath).catch(() => undefined)
			: undefined;
	// A file of no checked language (most writes of a batch of data) skips the check's calls altogether.
	const syntax = checked
		? await guardSyntax([{ path: absolutePath, display: shown, before, after: content }], {
				mode: options.syntaxCheck,
				allowErrors: input.allowSyntaxErrors,
			})
		: NOTHING_FOUND;
	throwIfAborted(signal);
	try {
		result = await writeFileAtomic(absolutePath, encoded.data, { operations, flush: options.flush });
	} catch (error) {
		if (isAbortError(error)) throw error;
		throw new ToolError(fileSystemErrorMessage(error, shown, "write"), { path: shown, absolutePath });
	}
	const diagnostics = options.diagnostics
		? await diagnoseChanges(options.diagnostics, [{ path: absolutePath, display: shown, before, after: content }])
		: NOTHING_FOUND;
	const lines = countLines(content);
	const through =
		result.targetPath === absolutePath ? "" : ` (through the symlink, to ${workspace.displayPath(result.targetPath)})`;
	const verb = result.created ? "Created" : "Replaced";
	const size = `${lines} ${lines === 1 ? "line" : "lines"}, ${result.bytes} ${result.bytes === 1 ? "byte" : "bytes"}`;
	return {
		content: [
			{
				type: "text",
				text: `${verb} ${shown}${through}: ${size}.${encoded.note ? ` ${encoded.note}` : ""}${inPlaceNotice(result)}${notesText(syntax.notes, diagnostics.notes)}`,
			},
		],
		details: {
			path: shown,
			absolutePath: result.targetPath,
			created: result.created,
			bytes: result.bytes,
			lines,
			...(syntax.files.length > 0 ? { syntax: syntax.files } : {}),
			...(diagnostics.files.length > 0 ? { diagnostics: diagnostics.files } : {}),
		},
	};
}

/** The registry's entry of write (see `ToolEntry`). */
export const writeToolEntry = toolEntry({
	name: "write",
	definition: createWriteToolDefinition,
	tool: createWriteTool,
	seam: toolSeams.files,
	groups: ["coding", "path"],
});
