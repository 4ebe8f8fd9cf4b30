export { sourceLines } from "../../src/tools/notebook/cell-source.js";

/** A cell as the tests write it: source as a string, or as nbformat's array of lines. */
export interface TestCell {
	cell_type: "code" | "markdown" | "raw";
	source: string | string[];
	execution_count?: number | null;
	outputs?: unknown[];
	metadata?: Record<string, unknown>;
}

/**
 * A Jupyter notebook (nbformat 4.5) as JSON text, indented with one space as Jupyter writes it
 * (or `indent` spaces), ending in a newline. Code cells get `outputs: []` when none are given.
 */
export function makeNotebook(cells: readonly TestCell[], indent = 1): string {
	const full = cells.map((cell) =>
		cell.cell_type === "code"
			? { metadata: {}, execution_count: null, outputs: [], ...cell }
			: { metadata: {}, ...cell },
	);
	const notebook = {
		cells: full,
		metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" } },
		nbformat: 4,
		nbformat_minor: 5,
	};
	return `${JSON.stringify(notebook, null, indent)}\n`;
}
