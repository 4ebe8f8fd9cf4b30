// Diagnostics from the real TypeScript language server (typescript-language-server over tsserver)
// after edit, write and apply_patch: only what a change introduced, gone once fixed, and no server
// process left after the session. One server serves the whole file.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiagnosticsSession, type DiagnosticsSession } from "../../src/diagnostics/index.js";
import { createApplyPatchTool, createEditTool, createWriteTool } from "../../src/tools/index.js";
import { resultText } from "../helpers/results.js";
import { eventually } from "../tools/shell/survivors.js";
import { processTree, stillRunning } from "./server-processes.js";

// The machine may be busy: the budget is generous so the answer, not the clock, decides.
const BUDGET_MS = 120_000;
const TIMEOUT_MS = 240_000;

let dir: string;
let session: DiagnosticsSession;

beforeAll(async () => {
	dir = await mkdtemp(join(tmpdir(), "toolbelt-"));
	await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
	// One error from the start: it must never be reported as the change's.
	await writeFile(
		join(dir, "math.ts"),
		"export function add(a: number, b: number): number {\n\treturn a + b;\n}\n\nconst old: string = 1;\nexport { old };\n",
	);
	session = createDiagnosticsSession({ root: dir, budgetMs: BUDGET_MS });
	await session.ready(join(dir, "math.ts"));
}, TIMEOUT_MS);

afterAll(async () => {
	await session?.dispose();
	await rm(dir, { recursive: true, force: true });
});

describe("TypeScript diagnostics after a change", () => {
	it(
		"reports the type error an edit introduced, and only it",
		async () => {
			const edit = createEditTool(dir, { diagnostics: session });
			const result = await edit.execute(
				"1",
				{
					path: "math.ts",
					old_string: "\treturn a + b;",
					new_string: '\tconst label: number = "sum";\n\treturn a + b + label;',
				},
				undefined,
			);
			const text = resultText(result);
			expect(text).toContain("[diagnostics] math.ts: 1 new error after this change");
			expect(text).toContain("error TS2322: Type 'string' is not assignable to type 'number'.");
			expect(text).toMatch(/^ {2}2:8 error TS2322/m);
			// The old error (line 5, now 6) is not the change's.
			expect(text).not.toMatch(/Type 'number' is not assignable to type 'string'/);
			expect(text).not.toMatch(/please|fix/i);
			const report = result.details?.diagnostics?.[0];
			expect(report).toMatchObject({ status: "checked", server: "typescript", total: 2, resolved: 0 });
			expect(report?.introduced).toHaveLength(1);
		},
		TIMEOUT_MS,
	);

	it(
		"reports nothing new once a later edit fixes it",
		async () => {
			const edit = createEditTool(dir, { diagnostics: session });
			const result = await edit.execute(
				"2",
				{
					path: "math.ts",
					old_string: 'const label: number = "sum";',
					new_string: "const label: number = 0;",
				},
				undefined,
			);
			expect(resultText(result)).not.toContain("[diagnostics]");
			expect(result.details?.diagnostics?.[0]).toMatchObject({
				status: "checked",
				introduced: [],
				total: 1,
				resolved: 1,
			});
		},
		TIMEOUT_MS,
	);

	it(
		"checks a new file from write and the files of a patch",
		async () => {
			const write = createWriteTool(dir, { diagnostics: session });
			const written = await write.execute(
				"3",
				{
					path: "use.ts",
					content: 'import { add } from "./math";\nexport const total: number = add(1, "2");\n',
				},
				undefined,
			);
			expect(resultText(written)).toMatch(/\[diagnostics\] use\.ts: 1 new error.*\n {2}2:\d+ error TS2345/);

			const patch = createApplyPatchTool(dir, { diagnostics: session });
			const patched = await patch.execute(
				"4",
				{
					patch: [
						"*** Begin Patch",
						"*** Update File: use.ts",
						"@@",
						'-export const total: number = add(1, "2");',
						"+export const total: number = add(1, 2);",
						"*** End Patch",
					].join("\n"),
				},
				undefined,
			);
			expect(resultText(patched)).not.toContain("[diagnostics]");
			expect(patched.details?.diagnostics?.[0]).toMatchObject({ path: "use.ts", status: "checked", resolved: 1 });
			expect(await readFile(join(dir, "use.ts"), "utf8")).toContain("add(1, 2)");
		},
		TIMEOUT_MS,
	);

	it(
		"ends the server and everything it started with the session",
		async () => {
			const [pid] = session.serverPids();
			expect(pid).toBeDefined();
			const tree = processTree(pid ?? -1);
			// typescript-language-server and the tsserver it runs.
			expect(tree.length).toBeGreaterThanOrEqual(2);
			await session.dispose();
			// A killed process leaves the process table a moment after its signal (seen on Node 24).
			await eventually(() => stillRunning(tree).length === 0, 10_000);
			expect(stillRunning(tree)).toEqual([]);
			expect(session.serverPids()).toEqual([]);
		},
		TIMEOUT_MS,
	);
});
