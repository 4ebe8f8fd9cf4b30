// A file read that a language server checks starts that server ahead of the first change and shows
// it the file: the first change then finds the server warm and its diagnostics before the change
// known (a cold TypeScript start is seconds, past the 1.5 s budget: "diagnostics pending").
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDiagnosticsSession, type DiagnosticsSession } from "../../src/diagnostics/index.js";
import { createEditTool, createReadTool } from "../../src/tools/index.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { eventually } from "../tools/shell/survivors.js";

// A first start of tsserver takes seconds on a loaded machine: generous, the answers decide.
const BUDGET_MS = 120_000;
const TIMEOUT_MS = 240_000;
const tempDir = useTempDir();
const sessions: DiagnosticsSession[] = [];
afterEach(async () => {
	await Promise.all(sessions.splice(0).map((session) => session.dispose()));
});

function session(root: string, servers?: Parameters<typeof createDiagnosticsSession>[0]["servers"]) {
	const made = createDiagnosticsSession({ root, budgetMs: BUDGET_MS, ...(servers ? { servers } : {}) });
	sessions.push(made);
	return made;
}

/** A `typescript` server that only leaves a mark as it starts (it never answers). */
async function markingServer(): Promise<{ command: string[]; marker: string }> {
	const marker = join(tempDir(), "server-started");
	const script = join(tempDir(), "marking-server.sh");
	await writeFile(script, `#!/bin/sh\necho started > '${marker}'\nexec cat > /dev/null\n`);
	await chmod(script, 0o755);
	return { command: [script], marker };
}

describe("the read tool with a diagnostics session", () => {
	it("starts the server of a file it read, and none for a file no server checks", async () => {
		const project = join(tempDir(), "project");
		await mkdir(project);
		await writeFile(join(project, "notes.txt"), "plain\n");
		await writeFile(join(project, "count.ts"), "export const count = 1;\n");
		const { command, marker } = await markingServer();
		const diagnostics = session(project, { typescript: { command, extensions: [".ts"] } });
		const read = createReadTool(project, { diagnostics });
		expect(resultText(await read.execute("1", { path: "notes.txt" }, undefined))).toContain("plain");
		// The preparation begins 50 ms after a read: a second leaves it every chance to show.
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		expect(existsSync(marker)).toBe(false);
		expect(resultText(await read.execute("2", { path: "count.ts" }, undefined))).toContain("count = 1");
		expect(await eventually(() => existsSync(marker), 60_000)).toBe(true);
	});
});

describe("DiagnosticsSession.prepare with the real TypeScript server", () => {
	it(
		"shows the server the first file read, and the change after it is judged against that text",
		async () => {
			const project = join(tempDir(), "ts-project");
			await mkdir(project);
			await writeFile(
				join(project, "tsconfig.json"),
				JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }),
			);
			// One error from the start: it must never be reported as the change's.
			const math =
				"export function add(a: number, b: number): number {\n\treturn a + b;\n}\n\nconst old: string = 1;\nexport { old };\n";
			await writeFile(join(project, "math.ts"), math);
			await writeFile(join(project, "other.ts"), "export const other = 2;\n");
			const diagnostics = session(project);
			expect(diagnostics.serverPids()).toEqual([]);
			const first = vi.fn(async () => math);
			const second = vi.fn(async () => "export const other = 2;\n");
			await diagnostics.prepare(join(project, "math.ts"), first);
			await diagnostics.prepare(join(project, "other.ts"), second);
			expect(first).toHaveBeenCalledTimes(1);
			// One file loads the project; the server is not shown every file read.
			expect(second).not.toHaveBeenCalled();
			expect(diagnostics.serverPids()).toHaveLength(1);

			const edit = createEditTool(project, { diagnostics });
			const result = await edit.execute(
				"1",
				{ path: "math.ts", old_string: "\treturn a + b;", new_string: '\treturn a + b + "!";' },
				undefined,
			);
			const report = result.details?.diagnostics?.[0];
			expect(report).toMatchObject({ status: "checked", server: "typescript", total: 2 });
			expect(report?.introduced).toHaveLength(1);
			expect(resultText(result)).toContain("[diagnostics] math.ts: 1 new error after this change");
		},
		TIMEOUT_MS,
	);
});
