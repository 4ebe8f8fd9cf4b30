import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFdConfinedOperations } from "../../../src/workspace/local/files/fd-confined-operations.js";
import { localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { realPathOf } from "../../../src/workspace/paths/real-path.js";
import { useTempDir } from "../../helpers/temp-dir.js";

describe("createFdConfinedOperations", () => {
	const dir = useTempDir();

	async function confined() {
		const root = await realPathOf(localFileOperations, join(dir(), "root"));
		mkdirSync(root);
		const operations = createFdConfinedOperations(localFileOperations, [root]);
		if (!operations) throw new Error("this test needs /proc/self/fd (Linux)");
		return { root, operations };
	}

	it("reads small files (one synchronous pass) and large ones byte for byte", async () => {
		const { root, operations } = await confined();
		const small = Buffer.from("héllo\nworld\n");
		const large = Buffer.alloc(5 * 2 ** 20, "abc\n");
		writeFileSync(join(root, "small"), small);
		writeFileSync(join(root, "large"), large);
		writeFileSync(join(root, "empty"), "");
		expect((await operations.readFile(join(root, "small"))).equals(small)).toBe(true);
		expect((await operations.readFile(join(root, "large"))).equals(large)).toBe(true);
		expect((await operations.readFile(join(root, "empty"))).length).toBe(0);
	});

	it("refuses to read a small file reached through a link that leaves the roots", async () => {
		const { root, operations } = await confined();
		writeFileSync(join(dir(), "secret"), "secret\n");
		symlinkSync(join(dir(), "secret"), join(root, "innocent"));
		await expect(operations.readFile(join(root, "innocent"))).rejects.toMatchObject({ outsideRoots: true });
	});

	it("replaces files through temp files of distinct names and leaves none behind", async () => {
		const { root, operations } = await confined();
		const writes = Array.from({ length: 50 }, (_, index) =>
			operations.replaceFile?.(join(root, `file-${index}`), Buffer.from(`${index}\n`), { mode: 0o644 }),
		);
		await Promise.all(writes);
		expect(readdirSync(root).sort()).toEqual(Array.from({ length: 50 }, (_, index) => `file-${index}`).sort());
	});
});
