import type { Static } from "typebox";
import type { AgentTool } from "../engine/index.js";
import { Type } from "../engine/index.js";
import { allowSyntaxErrorsParameter } from "../syntax/index.js";
import { isWorkspaceTarget, workspaceOf } from "../workspace/index.js";
import { declarePatchTarget } from "./patch/target.js";
import type { ApplyPatchDetails, ApplyPatchToolOptions } from "./patch/types.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

export type { ApplyPatchDetails, ApplyPatchToolOptions, PatchFileDetails } from "./patch/types.js";

const DESCRIPTION = `Apply a patch that adds, updates, moves and deletes files, all or nothing: every hunk of every file is checked before anything is written, and if a write fails the files already written are restored.
Format:
*** Begin Patch
*** Add File: path/new.ts
+each line of the new file, prefixed with +
*** Update File: path/old.ts
*** Move to: path/renamed.ts   (optional)
@@ function or class line to find first (optional)
 context line (a space, then the line as it is)
-line to remove
+line to add
*** Delete File: path/gone.ts
*** End Patch
Give about 3 lines of context around each change; hunks of a file go in file order. Context is matched like edit's old_string (line endings, trailing whitespace, look-alike characters and indentation are tolerated); line endings and a byte-order mark are kept.
Returns a diff of each file changed.`;

/** Arguments of the apply_patch tool. */
export const applyPatchSchema = Type.Object(
	{
		patch: Type.String({
			description: "The whole patch, from *** Begin Patch to *** End Patch.",
		}),
		allow_syntax_errors: allowSyntaxErrorsParameter,
	},
	{ additionalProperties: false },
);

/** Arguments of apply_patch, as the model sends them. */
export type ApplyPatchToolInput = Static<typeof applyPatchSchema>;
/** The runnable apply_patch tool. */
export type ApplyPatchTool = AgentTool<typeof applyPatchSchema, ApplyPatchDetails>;

/** The model-facing definition of apply_patch (name, description, schema). */
export const createApplyPatchToolDefinition = defineTool(
	{ name: "apply_patch", title: "Apply patch", effect: "writes" },
	applyPatchSchema,
	DESCRIPTION,
);

function prepareArguments(args: unknown): unknown {
	if (typeof args === "string") return { patch: args };
	if (typeof args !== "object" || args === null) return args;
	const record = args as Record<string, unknown>;
	if (record.patch !== undefined) return args;
	// Names models use for the same thing (Codex's own tool takes `input`).
	for (const alias of ["input", "diff", "content", "patch_text"]) {
		if (typeof record[alias] === "string") {
			const { [alias]: patch, ...rest } = record;
			return { ...rest, patch };
		}
	}
	return args;
}

/** The runnable apply_patch tool: a multi-file patch applied as one transaction. */
export function createApplyPatchTool(cwd: string, options: ApplyPatchToolOptions = {}): ApplyPatchTool {
	const workspace = workspaceOf(cwd, options);
	return toolFrom(createApplyPatchToolDefinition(cwd, options), {
		prepareArguments,
		target: ({ patch }) => declarePatchTarget(workspace, patch),
		// The patch runner (parsing, matching, the transaction) loads on the first call, not at start-up.
		execute: async (_toolCallId, { patch, allow_syntax_errors }, signal, _onUpdate, context) =>
			(await import("./patch/run.js")).runPatch({
				workspace,
				target: isWorkspaceTarget(context?.target) ? context.target : undefined,
				patch,
				signal,
				flush: options.flush,
				maxFileBytes: options.maxFileBytes,
				syntaxCheck: options.syntaxCheck,
				allowSyntaxErrors: allow_syntax_errors,
				diagnostics: options.diagnostics,
			}),
	});
}

/** The registry's entry of apply_patch (see `ToolEntry`). */
export const applyPatchToolEntry = toolEntry({
	name: "apply_patch",
	definition: createApplyPatchToolDefinition,
	tool: createApplyPatchTool,
	seam: toolSeams.files,
});
