import type { Static } from "typebox";
import type { AgentTool } from "../engine/index.js";
import { Type } from "../engine/index.js";
import { allowSyntaxErrorsParameter } from "../syntax/index.js";
import { callTarget, workspaceOf } from "../workspace/index.js";
import { prepareEditArguments } from "./edit/arguments.js";
import type { EditToolDetails, EditToolOptions } from "./edit/types.js";
import { isNotebookEdit } from "./notebook/is-notebook-edit.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

export type { EditMatchStrategy } from "./edit/matching/match.js";
export type { EditOperations, EditToolDetails, EditToolOptions } from "./edit/types.js";

const DESCRIPTION = `Replace text in an existing file. Give \`path\`, the exact text to find (\`old_string\`) and its replacement (\`new_string\`), or several such pairs in \`edits\`.
- Copy \`old_string\` from the file as it is, with enough surrounding lines to make it unique; without \`replace_all\` it must occur exactly once.
- Small differences are tolerated and reported: line endings, trailing whitespace, spaces inside a line, curly quotes/dashes/odd spaces/full-width forms, a different leading indentation (new_string is re-indented to match), line-number prefixes copied from read output, and text escaped twice (\\n for a line break).
- \`edits\` are all matched against the original file, must not overlap, and are applied all or nothing.
- Line endings and a byte-order mark of the file are kept. To create a file or replace all of it, use write.
- Jupyter notebooks (.ipynb): give \`cell\` (its number, as read shows it) with \`new_source\`, or with old_string/new_string within that cell; the rest of the notebook stays as it was.
Returns a unified diff of the changed lines.`;

// One replacement's fields, written once for the single form and the items of `edits`.
const oldString = Type.String({ description: "The exact text to replace (copied from the file, not empty)." });
const newString = Type.String({ description: "The text to put in its place." });
const replaceAll = Type.Optional(
	Type.Boolean({ description: "Replace every occurrence instead of requiring exactly one. Default: false." }),
);

const editItemSchema = Type.Object(
	{ old_string: oldString, new_string: newString, replace_all: replaceAll },
	{ additionalProperties: false },
);

/** Arguments of the edit tool: one replacement, or several in `edits`. */
export const editSchema = Type.Object(
	{
		path: Type.String({ description: "Path of the file to edit, relative to the working directory or absolute." }),
		old_string: Type.Optional(oldString),
		new_string: Type.Optional(newString),
		replace_all: replaceAll,
		edits: Type.Optional(
			Type.Array(editItemSchema, {
				description: "Several replacements in one file, applied together (instead of old_string/new_string).",
			}),
		),
		cell: Type.Optional(
			Type.Integer({
				minimum: 1,
				description: "Jupyter notebooks only: the 1-based number of the cell to edit, as read shows it.",
			}),
		),
		new_source: Type.Optional(
			Type.String({ description: "Jupyter notebooks only: the cell's whole new source (with cell)." }),
		),
		allow_syntax_errors: allowSyntaxErrorsParameter,
	},
	{ additionalProperties: false },
);

/** Arguments of the edit tool, as validated against its schema. */
export type EditToolInput = Static<typeof editSchema>;
/** The runnable edit tool. */
export type EditTool = AgentTool<typeof editSchema, EditToolDetails>;

/** The model-facing definition of edit (name, description, schema). */
export const createEditToolDefinition = defineTool(
	{ name: "edit", title: "Edit file", effect: "writes" },
	editSchema,
	DESCRIPTION,
);

/** The runnable edit tool: exact-then-tolerant matching, atomic write, unified diff result. */
export function createEditTool(cwd: string, options?: EditToolOptions): EditTool {
	const workspace = workspaceOf(cwd, options ?? {});
	return toolFrom(createEditToolDefinition(cwd, options), {
		prepareArguments: prepareEditArguments,
		target: ({ path }, context) =>
			workspace.resolveTarget({ access: "write", path, partial: true }, { lookups: context?.lookups }),
		execute: async (_toolCallId, input, signal, _onUpdate, call) => {
			// The path is resolved once, by the workspace, as the call's target (here only when no one
			// asked for the target first): matching the name, reading, writing and the mutation queue's
			// key all use that one answer, on whatever machine the workspace lives.
			const target = await callTarget(workspace, call?.target, { access: "write", path: input.path, partial: true });
			// Through the call's own operations: confined ones check the file really read and written.
			const request = {
				cwd: workspace.cwd,
				input,
				signal,
				target,
				options: { ...options, operations: workspace.filesFor(call?.target) },
			};
			// Loaded on the first call: matching, diffing and notebooks are most of edit's modules, and a
			// process that only registers edit (a one-shot `toolbelt tool read`) should not pay for them.
			if (isNotebookEdit(input)) return (await import("./notebook/edit-notebook.js")).runNotebookEdit(request);
			return (await import("./edit/run.js")).runEdit(request);
		},
	});
}

/** The registry's entry of edit (see `ToolEntry`). */
export const editToolEntry = toolEntry({
	name: "edit",
	definition: createEditToolDefinition,
	tool: createEditTool,
	seam: toolSeams.files,
	groups: ["coding", "path"],
});
