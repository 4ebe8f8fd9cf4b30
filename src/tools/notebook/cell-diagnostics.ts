// Language-server diagnostics for a notebook cell edit: the code cells joined into one virtual
// Python document (a cell sees what earlier cells defined, as the kernel does), checked as any
// changed file is, and each introduced diagnostic placed back at its cell and line.
import {
	type ChangeDiagnostics,
	DEFAULT_DIAGNOSTICS_BUDGET_MS,
	DEFAULT_MAX_DIAGNOSTICS,
	type DiagnosticsOutcome,
	diagnoseChanges,
	type FileDiagnostic,
	type FileDiagnosticsReport,
	reportNote,
} from "../../diagnostics/index.js";
import { joinText, type Notebook, notebookLanguage } from "./notebook-json.js";

/** A code cell's place in the virtual document. */
interface CellLines {
	/** The cell's number (1-based, as read shows it). */
	cell: number;
	/** Its first line in the document (1-based). */
	first: number;
	/** How many lines it has there. */
	lines: number;
}

/**
 * The code cells as one document. IPython's own lines (`%magic`, `!command`) are commented out so
 * the server reads Python, keeping every line where it was.
 */
function virtualDocument(notebook: Notebook, edited: { index: number; source: string }) {
	const cells: CellLines[] = [];
	const parts: string[] = [];
	let first = 1;
	notebook.cells.forEach((cell, index) => {
		if (cell.cell_type !== "code") return;
		const source = index === edited.index ? edited.source : joinText(cell.source);
		const lines = source
			.replace(/\n$/, "")
			.split("\n")
			.map((line) => (/^\s*[%!]/.test(line) ? `#${line}` : line));
		cells.push({ cell: index + 1, first, lines: lines.length });
		parts.push(`${lines.join("\n")}\n`);
		first += lines.length;
	});
	return { text: parts.join(""), cells };
}

function cellOf(cells: readonly CellLines[], line: number): CellLines | undefined {
	return cells.find((cell) => line >= cell.first && line < cell.first + cell.lines);
}

/** A report of the virtual document as reports of the notebook's cells (`cell 3 of nb.ipynb`). */
function reportsByCell(report: FileDiagnosticsReport, cells: readonly CellLines[], shown: string) {
	if (report.status !== "checked") return [{ ...report, path: shown }];
	const byCell = new Map<number, FileDiagnostic[]>();
	for (const diagnostic of report.introduced) {
		const place = cellOf(cells, diagnostic.line);
		if (!place) continue;
		const moved = { ...diagnostic, line: diagnostic.line - place.first + 1 };
		byCell.set(place.cell, [...(byCell.get(place.cell) ?? []), moved]);
	}
	if (byCell.size === 0) return [{ ...report, path: shown, introduced: [] }];
	return [...byCell].map(([cell, introduced]) => ({ ...report, path: `cell ${cell} of ${shown}`, introduced }));
}

/**
 * The diagnostics a cell edit introduced, by cell: for a Python notebook only (the servers know
 * Python; another kernel's cells are left to the syntax check). Contract: never throws.
 */
export async function diagnoseCellEdit(change: {
	diagnostics: ChangeDiagnostics | undefined;
	absolutePath: string;
	shown: string;
	notebook: Notebook;
	cellIndex: number;
	oldSource: string;
	newSource: string;
}): Promise<DiagnosticsOutcome> {
	const none = { notes: [], files: [] };
	const language = (notebookLanguage(change.notebook) ?? "python").toLowerCase();
	if (!change.diagnostics || language !== "python" || change.notebook.cells[change.cellIndex]?.cell_type !== "code")
		return none;
	const before = virtualDocument(change.notebook, { index: change.cellIndex, source: change.oldSource });
	const after = virtualDocument(change.notebook, { index: change.cellIndex, source: change.newSource });
	// Beside the notebook, so the server resolves its imports from the notebook's folder.
	const path = `${change.absolutePath}#code-cells.py`;
	const outcome = await diagnoseChanges(change.diagnostics, [
		{ path, display: change.shown, before: before.text, after: after.text },
	]);
	const files = outcome.files.flatMap((report) => reportsByCell(report, after.cells, change.shown));
	const options = { maxItems: DEFAULT_MAX_DIAGNOSTICS, budgetMs: DEFAULT_DIAGNOSTICS_BUDGET_MS };
	const notes = files.flatMap((report) => reportNote(report, options) ?? []);
	return { notes, files };
}
