// Diagnostics from the real pyright language server after an edit. One server serves the file.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiagnosticsSession, type DiagnosticsSession } from "../../src/diagnostics/index.js";
import { createEditTool } from "../../src/tools/index.js";
import { makeNotebook } from "../helpers/make-notebook.js";
import { resultText } from "../helpers/results.js";
import { processTree, stillRunning } from "./server-processes.js";

// The machine may be busy: the budget is generous so the answer, not the clock, decides.
const BUDGET_MS = 120_000;
const TIMEOUT_MS = 240_000;

let dir: string;
let session: DiagnosticsSession;

beforeAll(async () => {
	dir = await mkdtemp(join(tmpdir(), "toolbelt-"));
	await writeFile(
		join(dir, "shop.py"),
		'def total(prices: list[float]) -> float:\n    return sum(prices)\n\n\nlabel: int = "old"\n',
	);
	session = createDiagnosticsSession({ root: dir, budgetMs: BUDGET_MS });
	await session.ready(join(dir, "shop.py"));
}, TIMEOUT_MS);

afterAll(async () => {
	await session?.dispose();
	await rm(dir, { recursive: true, force: true });
});

describe("Python diagnostics after a change (pyright)", () => {
	it(
		"reports the error an edit introduced, not the one the file had, and nothing once fixed",
		async () => {
			const edit = createEditTool(dir, { diagnostics: session });
			const broken = await edit.execute(
				"1",
				{
					path: "shop.py",
					old_string: "    return sum(prices)",
					new_string: "    count: str = len(prices)\n    return sum(prices) / len(count)",
				},
				undefined,
			);
			const text = resultText(broken);
			expect(text).toMatch(
				/\[diagnostics\] shop\.py: 1 new error after this change \(python language server\):\n {2}2:\d+ error reportAssignmentType: Type "int" is not assignable to declared type "str"/,
			);
			expect(text).not.toContain("\"Literal['old']\"");
			expect(broken.details?.diagnostics?.[0]).toMatchObject({ status: "checked", server: "python", total: 2 });

			const fixed = await edit.execute(
				"2",
				{
					path: "shop.py",
					old_string: "count: str = len(prices)",
					new_string: "count: str = str(len(prices))",
				},
				undefined,
			);
			expect(resultText(fixed)).not.toContain("[diagnostics]");
			expect(fixed.details?.diagnostics?.[0]).toMatchObject({
				status: "checked",
				introduced: [],
				total: 1,
				resolved: 1,
			});
		},
		TIMEOUT_MS,
	);

	it(
		"checks a notebook cell edit with the cells before it, and names the cell and its line",
		async () => {
			await writeFile(
				join(dir, "prices.ipynb"),
				makeNotebook([
					{
						cell_type: "code",
						source: "%matplotlib inline\ndef total(prices: list[float]) -> float:\n    return sum(prices)\n",
					},
					{ cell_type: "markdown", source: "# Totals\n" },
					{ cell_type: "code", source: "print('start')\nx: float = total([1.0, 2.5])\nprint(x)\n" },
				]),
			);
			const edit = createEditTool(dir, { diagnostics: session });
			const typed = await edit.execute(
				"3",
				{ path: "prices.ipynb", cell: 3, old_string: "x: float", new_string: "x: str" },
				undefined,
			);
			expect(resultText(typed)).toMatch(
				/\[diagnostics\] cell 3 of prices\.ipynb: 1 new error after this change \(python language server\):\n {2}2:10 error reportAssignmentType: Type "float" is not assignable to declared type "str"/,
			);
			// A change in cell 1 that breaks cell 3: reported at cell 3, where the name is used.
			const renamed = await edit.execute(
				"4",
				{ path: "prices.ipynb", cell: 1, old_string: "def total(", new_string: "def total_of(" },
				undefined,
			);
			const text = resultText(renamed);
			expect(text).toMatch(
				/\[diagnostics\] cell 3 of prices\.ipynb: 1 new error after this change \(python language server\):\n {2}2:10 error reportUndefinedVariable: "total" is not defined/,
			);
			// The magic line is not read as Python.
			expect(text).not.toContain("cell 1 of");
		},
		TIMEOUT_MS,
	);

	it(
		"leaves no server process once the session ends",
		async () => {
			const [pid] = session.serverPids();
			const tree = processTree(pid ?? -1);
			await session.dispose();
			expect(stillRunning(tree)).toEqual([]);
		},
		TIMEOUT_MS,
	);
});
