import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeBombPdf, makePdf } from "../../helpers/make-pdf.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";
import { peakMemoryEnv, peakMemoryOf } from "../helpers/peak-memory.js";

const MB = 1024 * 1024;

describe("toolbelt tool read on a PDF decompression bomb", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it.each([
		{ chain: "[/FlateDecode]", filters: ["FlateDecode"] as const },
		// Before, only a stream naming FlateDecode was checked, and only when zlib could read it whole.
		{ chain: "[/ASCII85Decode /FlateDecode]", filters: ["ASCII85Decode", "FlateDecode"] as const },
	])(
		"refuses a page that inflates to 100 MB through $chain before inflating it, in bounded memory",
		async ({ filters }) => {
			await writeFile(join(dir(), "bomb.pdf"), makeBombPdf(100 * MB, { filters: [...filters] }));
			const run = await processes.run(["tool", "read", '{"path": "bomb.pdf"}'], {
				cwd: dir(),
				env: cleanEnv(peakMemoryEnv()),
			});
			const { peakBytes, stderr } = peakMemoryOf(run);
			expect(run.code).toBe(1);
			expect(stderr).toMatch(/inflates to more than 32(\.0)? MB, more than read decompresses/);
			// pdf.js alone held the 100 MB page several times over (1.24 GB measured).
			expect(peakBytes).toBeLessThan(250 * MB);
		},
		120_000,
	);

	it("still reads a compressed PDF of ordinary size", async () => {
		await writeFile(
			join(dir(), "fine.pdf"),
			makePdf(["hello compressed world"], { filters: ["ASCII85Decode", "FlateDecode"] }),
		);
		const run = await processes.run(["tool", "read", '{"path": "fine.pdf"}'], { cwd: dir() });
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("hello compressed world");
	}, 120_000);
});
