import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openForScan } from "../../../src/workspace/local/search/scan-file-handle.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { makeFifo } from "./fixtures.js";

const dir = useTempDir();

describe("openForScan", () => {
	it("reads a file chunk by chunk from where the last read stopped, then 0 at its end", async () => {
		const path = join(dir(), "a.txt");
		await writeFile(path, "abcdefghij");
		const handle = await openForScan(path);
		const buffer = Buffer.alloc(4);
		const chunks: string[] = [];
		for (;;) {
			const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
			if (bytesRead === 0) break;
			chunks.push(buffer.toString("utf8", 0, bytesRead));
		}
		await handle.close();
		expect(chunks).toEqual(["abcd", "efgh", "ij"]);
	});

	it("does not hang on a FIFO that took a listed file's place: its read ends at once", async () => {
		const path = join(dir(), "swapped.txt");
		makeFifo(path);
		// A blocking open would wait for a writer forever and the test would time out.
		const handle = await openForScan(path);
		const result = await handle.read(Buffer.alloc(16), 0, 16, null).then(
			({ bytesRead }) => bytesRead,
			(error: NodeJS.ErrnoException) => error.code,
		);
		await handle.close();
		expect([0, "EAGAIN"]).toContain(result);
	});

	it("rejects for a missing file, as the asynchronous open does", async () => {
		await expect(openForScan(join(dir(), "missing.txt"))).rejects.toMatchObject({ code: "ENOENT" });
	});
});
