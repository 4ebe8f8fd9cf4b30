import type { EditArguments } from "../edit/types.js";

// Apart from the notebook editor, so that edit's tool file can tell a cell edit without loading it.

/** The notebook fields of edit's arguments (edit.ts's schema has them beside the plain ones). */
export interface NotebookEditArguments extends EditArguments {
	/** 1-based number of the cell whose source changes, as read shows it. */
	cell?: number;
	/** The cell's whole new source (instead of old_string/new_string within the cell). */
	new_source?: string;
}

/** True when an edit call addresses a notebook cell rather than the file's raw text. */
export function isNotebookEdit(input: NotebookEditArguments): boolean {
	return input.cell !== undefined || input.new_source !== undefined;
}
