import type { ToolResult } from "../../engine/index.js";
import { ToolError, throwIfAborted, truncateTail, withFileMutationQueue } from "../../engine/index.js";
import { type GuardedFile, guardSyntax } from "../../syntax/index.js";
import { type WorkspaceTarget, writeFileAtomic } from "../../workspace/index.js";
import { diffEdit } from "../edit/diff/diff.js";
import { type EditMatchStrategy, type EditRequest, MATCH_STRATEGIES } from "../edit/matching/match.js";
import { type AppliedReplacement, planEdits } from "../edit/plan.js";
import { resolvedPathOf } from "../edit/resolved-target.js";
import { stringSource } from "../edit/text-source.js";
import type { EditToolDetails, EditToolOptions } from "../edit/types.js";
import { fileSystemErrorMessage, notFoundError } from "../fs/messages.js";
import { diagnoseCellEdit } from "./cell-diagnostics.js";
import { replaceCellSource } from "./cell-source.js";
import type { NotebookEditArguments } from "./is-notebook-edit.js";
import { joinText, type Notebook, type NotebookCell, notebookLanguage, parseNotebook } from "./notebook-json.js";

export { isNotebookEdit, type NotebookEditArguments } from "./is-notebook-edit.js";

/** Notebooks larger than this are not edited by cell. */
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;

/** Structured result of a notebook cell edit: edit's details, the diff being of the cell's source. */
export interface NotebookEditDetails extends EditToolDetails {
	/** The cell edited (1-based). */
	cell: number;
	/** The cell's type: code, markdown or raw. */
	cellType: string;
}

function requestsOf(input: NotebookEditArguments): EditRequest[] {
	const pairs = [
		...(input.old_string !== undefined || input.new_string !== undefined
			? [{ old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all }]
			: []),
		...(input.edits ?? []),
	];
	return pairs.map((pair) => {
		if (pair.old_string === undefined || pair.new_string === undefined) {
			throw new ToolError("Give old_string and new_string together (a replacement within the cell), or new_source.");
		}
		return { oldString: pair.old_string, newString: pair.new_string, replaceAll: pair.replace_all ?? false };
	});
}

/** The cell's new source, the spans that changed in it and how each replacement matched. */
interface PlannedSource {
	source: string;
	replacements: AppliedReplacement[];
	strategies: EditMatchStrategy[];
}

/** The cell's new source and the spans that changed in it. */
function plannedSource(input: NotebookEditArguments, source: string, label: string): PlannedSource {
	const requests = requestsOf(input);
	if (input.new_source !== undefined) {
		if (requests.length > 0)
			throw new ToolError("Give either new_source or old_string/new_string for a cell, not both.");
		const whole = { editIndex: 0, start: 0, end: source.length, newStart: 0, newEnd: input.new_source.length };
		return { source: input.new_source, replacements: [whole], strategies: ["exact"] };
	}
	if (requests.length === 0) {
		throw new ToolError(
			`Nothing to change in ${label}: give new_source (the cell's whole new source) or old_string and new_string.`,
		);
	}
	try {
		const plan = planEdits(source, requests);
		return { source: plan.content, replacements: plan.replacements, strategies: plan.strategies };
	} catch (error) {
		if (error instanceof ToolError) throw new ToolError(`Edit of ${label} failed: ${error.message}`, error.details);
		throw error;
	}
}

/**
 * Edits one notebook cell's source, by cell number: in the file's mutation queue, the new source
 * replaces only that cell's `source` value, written in the notebook's own JSON style, so the rest
 * of the file stays byte-identical. Returns a diff of the cell's source.
 */
export async function runNotebookEdit(run: {
	cwd: string;
	input: NotebookEditArguments;
	signal: AbortSignal | undefined;
	options: EditToolOptions;
	/** The notebook as its workspace resolved it, once per call (`callTarget`). */
	target: WorkspaceTarget;
}): Promise<ToolResult<NotebookEditDetails>> {
	const { cwd, input, signal, options } = run;
	const operations = options.operations ?? run.target.workspace.files;
	if (input.cell === undefined) {
		throw new ToolError(
			"new_source needs cell: the number of the notebook cell to replace (1-based, as read shows it).",
		);
	}
	const { absolutePath, info, key, display: shown } = resolvedPathOf(run.target, input.path);
	if (!info) throw await notFoundError({ cwd, absolutePath, operations });
	if (info.kind !== "file")
		throw new ToolError(`${shown} is not a regular file; a notebook edit needs an .ipynb file.`);
	if (info.size > MAX_NOTEBOOK_BYTES) throw new ToolError(`${shown} is too large to edit by cell; use bash.`);
	const cellNumber = input.cell;
	return withFileMutationQueue(
		absolutePath,
		async () => {
			throwIfAborted(signal);
			let text: string;
			try {
				text = (await operations.readFile(absolutePath)).toString("utf8");
			} catch (error) {
				throw new ToolError(fileSystemErrorMessage(error, shown, "read"));
			}
			const notebook = parseNotebook(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
			if (!notebook) {
				throw new ToolError(
					`${shown} is not a Jupyter notebook (nbformat 4 JSON with a cells array), so cell edits do not apply. Leave out cell and new_source to edit it as text.`,
				);
			}
			const cell = notebook.cells[cellNumber - 1];
			if (!cell || cellNumber < 1) {
				throw new ToolError(
					`${shown} has ${notebook.cells.length} cells; cell ${cellNumber} does not exist. Use a cell number from 1 to ${notebook.cells.length} (read shows them); to add cells, rewrite the notebook with write.`,
				);
			}
			const label = `cell ${cellNumber} of ${shown}`;
			const oldSource = joinText(cell.source);
			const planned = plannedSource(input, oldSource, label);
			const updated = replaceCellSource(text, cellNumber - 1, planned.source);
			const syntax = await guardSyntax([cellChange({ absolutePath, label, notebook, cell, oldSource, planned })], {
				mode: options.syntaxCheck,
				allowErrors: input.allow_syntax_errors,
			});
			throwIfAborted(signal);
			try {
				await writeFileAtomic(absolutePath, Buffer.from(updated, "utf8"), {
					operations,
					flush: options.flush ?? false,
				});
			} catch (error) {
				throw new ToolError(`${fileSystemErrorMessage(error, shown, "write")} The file was not changed.`);
			}
			const result = describe({ shown, absolutePath, cellNumber, cellType: cell.cell_type, oldSource, planned });
			if (syntax.files.length > 0)
				result.details = { ...(result.details as NotebookEditDetails), syntax: syntax.files };
			const diagnostics = await diagnoseCellEdit({
				diagnostics: options.diagnostics,
				absolutePath,
				shown,
				notebook,
				cellIndex: cellNumber - 1,
				oldSource,
				newSource: planned.source,
			});
			if (diagnostics.files.length > 0)
				result.details = { ...(result.details as NotebookEditDetails), diagnostics: diagnostics.files };
			for (const note of [...syntax.notes, ...diagnostics.notes]) result.content.push({ type: "text", text: note });
			return result;
		},
		{ key },
	);
}

/** Extensions that pick the syntax check's grammar for a code cell, by the notebook's language. */
const CELL_EXTENSIONS: Record<string, string> = { python: ".py", javascript: ".js", typescript: ".ts" };

/**
 * A code cell's change as the syntax check reads it: its source alone, named as a file of the
 * notebook's language (a markdown cell, or a language without a grammar, names none and is not read).
 */
function cellChange(change: {
	absolutePath: string;
	label: string;
	notebook: Notebook;
	cell: NotebookCell;
	oldSource: string;
	planned: PlannedSource;
}): GuardedFile {
	const extension = CELL_EXTENSIONS[(notebookLanguage(change.notebook) ?? "python").toLowerCase()];
	const checked = change.cell.cell_type === "code" && extension !== undefined;
	return {
		path: `${change.absolutePath}#${change.label.split(" ", 2).join("-")}${checked ? extension : ""}`,
		display: change.label,
		before: change.oldSource,
		after: checked ? change.planned.source : undefined,
	};
}

function describe(change: {
	shown: string;
	absolutePath: string;
	cellNumber: number;
	cellType: string;
	oldSource: string;
	planned: PlannedSource;
}): ToolResult<NotebookEditDetails> {
	const diff = diffEdit({
		original: stringSource(change.oldSource),
		updated: stringSource(change.planned.source),
		replacements: change.planned.replacements,
		path: `${change.shown} (cell ${change.cellNumber})`,
	});
	const shownDiff = truncateTail(diff.text);
	const rank = Math.max(0, ...change.planned.strategies.map((strategy) => MATCH_STRATEGIES.indexOf(strategy)));
	const details: NotebookEditDetails = {
		path: change.shown,
		absolutePath: change.absolutePath,
		diff: diff.text,
		diffTruncated: false,
		firstChangedLine: diff.firstChangedLine,
		replacements: change.planned.replacements.length,
		strategy: MATCH_STRATEGIES[rank] ?? "exact",
		strategies: change.planned.strategies,
		bom: false,
		linesAdded: diff.added,
		linesRemoved: diff.removed,
		cell: change.cellNumber,
		cellType: change.cellType,
	};
	const head = `Edited cell ${change.cellNumber} (${change.cellType}) of ${change.shown}; the rest of the notebook is unchanged. Line numbers in the diff count within the cell's source.`;
	const note = shownDiff.truncated ? "\n[diff cut; read the notebook to see the rest]" : "";
	return { content: [{ type: "text", text: `${head}\n${shownDiff.content}${note}` }], details };
}
