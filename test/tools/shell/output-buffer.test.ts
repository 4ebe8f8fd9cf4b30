import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ShellOutputBuffer } from "../../../src/tools/shell/output-buffer.js";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { useTempDir } from "../../helpers/temp-dir.js";

async function feed(buffer: ShellOutputBuffer, bytes: Buffer, chunkSize: number): Promise<void> {
	for (let offset = 0; offset < bytes.length; offset += chunkSize) {
		await buffer.write(bytes.subarray(offset, offset + chunkSize));
	}
}

describe("ShellOutputBuffer", () => {
	const tempDir = useTempDir();

	it("keeps whole characters whatever the chunk boundaries", async () => {
		const text = Array.from({ length: 400 }, (_, index) => `€😀é line ${index}`).join("\n");
		const bytes = Buffer.from(text);
		for (const chunkSize of [1, 2, 3, 5, 7]) {
			const buffer = new ShellOutputBuffer({ maxBytes: 1000, maxLines: 50, tailBytes: 1501, tempDir: tempDir() });
			await feed(buffer, bytes, chunkSize);
			const output = await buffer.finish();
			expect(output.text).not.toContain("\uFFFD");
			expect(output.text.endsWith("line 399")).toBe(true);
			expect(output.truncation.originalLines).toBe(400);
			expect(output.truncation.originalBytes).toBe(bytes.length);
			expect(readFileSync(output.fullOutputPath ?? "").equals(bytes)).toBe(true);
		}
		await disposeShellProcesses();
	});

	it("leaves out an incomplete character at the very end", async () => {
		const buffer = new ShellOutputBuffer({ tempDir: tempDir() });
		await buffer.write(Buffer.from("ok €").subarray(0, 5));
		expect(buffer.preview()).toBe("ok ");
		const output = await buffer.finish();
		expect(output.text).toBe("ok ");
	});

	it("writes the full-output file only when the output does not fit", async () => {
		const small = new ShellOutputBuffer({ tempDir: tempDir() });
		await small.write(Buffer.from("a\nb\n"));
		const output = await small.finish();
		expect(output.truncation.truncated).toBe(false);
		expect(output.fullOutputPath).toBeUndefined();
		expect(output.truncation.originalLines).toBe(2);
	});

	it("counts a final line without a newline", async () => {
		const buffer = new ShellOutputBuffer({ tempDir: tempDir() });
		await buffer.write(Buffer.from("a\nb"));
		expect((await buffer.finish()).truncation.originalLines).toBe(2);
	});

	it("removes its file on discard", async () => {
		const buffer = new ShellOutputBuffer({ maxBytes: 10, tailBytes: 16, tempDir: tempDir() });
		await buffer.write(Buffer.alloc(100, "x"));
		expect(readdirSync(tempDir())).toHaveLength(1);
		await buffer.discard();
		expect(readdirSync(tempDir())).toEqual([]);
	});
});
