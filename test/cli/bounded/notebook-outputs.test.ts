import { open } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeNotebook } from "../../helpers/make-notebook.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";
import { peakMemoryEnv, peakMemoryOf } from "../helpers/peak-memory.js";

const MB = 1024 * 1024;
const PLACEHOLDER = "PLACEHOLDER-OUTPUT";

/**
 * A notebook whose one cell has an `image/png` output of `outputBytes` base64 characters, written
 * a megabyte at a time: the test process never holds it (a child's peak memory counts what its
 * parent held when it was started).
 */
async function writeNotebookWithHugeOutput(path: string, outputBytes: number): Promise<void> {
	const text = makeNotebook([
		{
			cell_type: "code",
			source: "plot()",
			outputs: [{ output_type: "display_data", data: { "image/png": PLACEHOLDER }, metadata: {} }],
		},
		{ cell_type: "markdown", source: "# after the plot" },
	]);
	const [before, after] = text.split(PLACEHOLDER);
	const file = await open(path, "w");
	try {
		await file.write(before ?? "");
		const block = "A".repeat(MB);
		for (let written = 0; written < outputBytes; written += MB) await file.write(block);
		await file.write(after ?? "");
	} finally {
		await file.close();
	}
}

describe("toolbelt tool read on a notebook with an output of hundreds of MB", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it("pages it as JSON text in bounded memory and says why and how to see its cells", async () => {
		await writeNotebookWithHugeOutput(join(dir(), "plots.ipynb"), 300 * MB);
		const run = await processes.run(["tool", "read", '{"path": "plots.ipynb"}'], {
			cwd: dir(),
			env: cleanEnv({ HOME: dir(), ...peakMemoryEnv() }),
		});
		const { peakBytes, stderr } = peakMemoryOf(run);
		expect(stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/"source": \[?\s*"plot\(\)"/);
		expect(run.stdout).toMatch(
			/\[plots\.ipynb is a notebook of 300\.0 MB, more than the 64\.0 MB read parses as cells \(its outputs are probably huge\): shown as its JSON text instead, long lines cut\. To see its cells, clear the outputs into a copy via bash/,
		);
		expect(peakBytes).toBeLessThan(200 * MB);
	}, 120_000);
});
