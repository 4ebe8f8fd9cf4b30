import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	disposeShellProcesses,
	MAX_RETAINED_OUTPUT_FILES,
	registerOutputFile,
	settleOutputFile,
} from "../../../src/workspace/local/process/background-registry.js";
import { useTempDir } from "../../helpers/temp-dir.js";

describe("full-output file retention", () => {
	const tempDir = useTempDir();
	afterEach(() => disposeShellProcesses());

	it("keeps only the newest files, so a long session cannot fill the temp disk", async () => {
		const paths: string[] = [];
		for (let index = 0; index < MAX_RETAINED_OUTPUT_FILES + 5; index++) {
			const path = join(tempDir(), `output-${index}.log`);
			await writeFile(path, "x".repeat(100));
			registerOutputFile(path);
			paths.push(path);
		}
		expect(paths.slice(0, 5).map(existsSync)).toEqual([false, false, false, false, false]);
		expect(paths.slice(5).every(existsSync)).toBe(true);
	});

	it("never deletes a file a running command still writes, and counts it once settled", async () => {
		const live = join(tempDir(), "live.log");
		await writeFile(live, "running");
		registerOutputFile(live, { live: true });
		const paths: string[] = [];
		for (let index = 0; index < MAX_RETAINED_OUTPUT_FILES + 2; index++) {
			const path = join(tempDir(), `output-${index}.log`);
			await writeFile(path, "x");
			registerOutputFile(path);
			paths.push(path);
		}
		expect(existsSync(live)).toBe(true);
		settleOutputFile(live);
		// Now the newest, it stays; the oldest others made room.
		expect(existsSync(live)).toBe(true);
		expect(paths.filter(existsSync)).toHaveLength(MAX_RETAINED_OUTPUT_FILES - 1);
	});
});
