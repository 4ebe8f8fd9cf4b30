import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";
import { peakMemoryEnv, peakMemoryOf } from "../helpers/peak-memory.js";

const MB = 1024 * 1024;

/** Writes `before`, `lineBytes` of one line of x's with `needle` in its middle, and `after`, streamed. */
async function writeLongLine(path: string, lineBytes: number): Promise<void> {
	const file = await open(path, "w");
	try {
		await file.write("first line\n");
		const piece = Buffer.alloc(MB, "x");
		for (let written = 0; written < lineBytes / 2; written += MB) await file.write(piece);
		await file.write(" needle ");
		for (let written = 0; written < lineBytes / 2; written += MB) await file.write(piece);
		await file.write("\nlast line\n");
	} finally {
		await file.close();
	}
}

describe("toolbelt tool grep (ripgrep) on hostile input", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it("answers a match in a 64 MB line in memory that does not grow with the line", async () => {
		await writeLongLine(join(dir(), "long.txt"), 64 * MB);
		const run = await processes.run(["tool", "grep", '{"pattern": "needle"}'], {
			cwd: dir(),
			env: cleanEnv(peakMemoryEnv()),
		});
		const { peakBytes, stderr } = peakMemoryOf(run);
		expect(stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^long\.txt:2: .*x needle x.*/m);
		expect(run.stdout).toContain("bytes of this line left out");
		// The line alone is 64 MB; held whole (and decoded) it took several times that.
		console.log("peak", peakBytes / MB);
		expect(peakBytes).toBeLessThan(150 * MB);
	}, 120_000);

	it("refuses a pattern whose compiled form is huge at once, with ripgrep's reason", async () => {
		await writeFile(join(dir(), "one.txt"), `${"a".repeat(MB)}\n`);
		const run = await processes.run(["tool", "grep", JSON.stringify({ pattern: "a{1000}{1000}" })], { cwd: dir() });
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/exceeds size limit/);
		expect(run.stderr).toMatch(/Fix the pattern/);
	}, 120_000);
});
