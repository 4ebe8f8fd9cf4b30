// The parts of the Jupyter notebook format (nbformat 4) that read and edit use.

/** A multiline string as notebooks store it: one string, or an array of lines that keep their "\n". */
export type MultilineText = string | string[];

/** One output of a code cell. */
export interface NotebookOutput {
	output_type: "stream" | "execute_result" | "display_data" | "error" | string;
	/** Stream name (`stdout`, `stderr`) of a stream output. */
	name?: string;
	/** Text of a stream output. */
	text?: MultilineText;
	/** MIME bundle of a result or display output. */
	data?: Record<string, MultilineText | unknown>;
	/** Error name, value and traceback of an error output. */
	ename?: string;
	evalue?: string;
	traceback?: string[];
}

/** One notebook cell. */
export interface NotebookCell {
	cell_type: "code" | "markdown" | "raw" | string;
	source: MultilineText;
	execution_count?: number | null;
	outputs?: NotebookOutput[];
}

/** A parsed notebook. */
export interface Notebook {
	cells: NotebookCell[];
	metadata?: { kernelspec?: { language?: string }; language_info?: { name?: string } };
	nbformat?: number;
}

/** True when a path names a Jupyter notebook, by its extension (notebooks are plain JSON inside). */
export function isNotebookPath(path: string): boolean {
	return path.toLowerCase().endsWith(".ipynb");
}

/** A multiline value as one string. */
export function joinText(value: unknown): string {
	if (typeof value === "string") return value;
	if (Array.isArray(value)) return value.filter((line) => typeof line === "string").join("");
	return "";
}

/**
 * Parses notebook JSON (nbformat 4: a top-level `cells` array of objects with a `source`).
 * Returns undefined for anything else, so the caller can treat the file as plain text.
 */
export function parseNotebook(text: string): Notebook | undefined {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (typeof value !== "object" || value === null || !Array.isArray((value as Notebook).cells)) return undefined;
	const notebook = value as Notebook;
	const valid = notebook.cells.every(
		(cell) =>
			typeof cell === "object" &&
			cell !== null &&
			typeof cell.cell_type === "string" &&
			(typeof cell.source === "string" || Array.isArray(cell.source)),
	);
	return valid ? notebook : undefined;
}

/** The notebook's language, for the header the model reads. */
export function notebookLanguage(notebook: Notebook): string | undefined {
	return notebook.metadata?.kernelspec?.language ?? notebook.metadata?.language_info?.name;
}
