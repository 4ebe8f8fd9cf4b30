import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FileOperations, localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { resolveExistingPath } from "../../../src/workspace/paths/near-miss.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

/** Local operations that count the folder reads. */
function countingOperations(): { operations: FileOperations; readdirCalls: () => number } {
	let calls = 0;
	const operations: FileOperations = {
		...localFileOperations,
		readdir: (path) => {
			calls++;
			return localFileOperations.readdir(path);
		},
	};
	return { operations, readdirCalls: () => calls };
}

describe("resolveExistingPath's folder scan", () => {
	it("does not read the folder for a new plain ASCII name, which nothing else can look like", async () => {
		const { operations, readdirCalls } = countingOperations();
		const resolved = await resolveExistingPath(temp(), "new-file_1.txt", operations);
		expect(resolved).toMatchObject({ absolutePath: join(temp(), "new-file_1.txt"), match: undefined });
		expect(readdirCalls()).toBe(0);
	});

	it("still finds a name with a KELVIN SIGN asked for with a K (an NFC singleton, only the scan sees it)", async () => {
		const onDisk = "\u212Aelvin;`x.txt";
		await writeFile(join(temp(), onDisk), "x");
		const { operations, readdirCalls } = countingOperations();
		const resolved = await resolveExistingPath(temp(), "Kelvin;`x.txt", operations);
		expect(resolved).toMatchObject({ absolutePath: join(temp(), onDisk), match: "folder-scan" });
		expect(readdirCalls()).toBe(1);
	});
});
