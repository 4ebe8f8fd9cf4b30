import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../../src/workspace/files/atomic-write.js";
import { holdBoundPaths, isBoundPath } from "../../../src/workspace/files/bound-paths.js";
import { createFdConfinedOperations } from "../../../src/workspace/local/files/fd-confined-operations.js";
import { localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { realPathOf } from "../../../src/workspace/paths/real-path.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

// A name a live sandbox binds onto itself keeps its inode under toolbelt's writes, and is neither
// removed nor renamed (over): either would lift the bind for the sandbox's running commands.
describe("names a live sandbox holds", () => {
	it("are overwritten in place, then replaced by rename again once released", async () => {
		const path = join(temp(), ".envrc");
		await writeFile(path, "old\n");
		const inode = (await stat(path)).ino;
		const release = holdBoundPaths([path]);
		const held = await writeFileAtomic(path, "new\n");
		expect(held.inPlace?.reason).toBe("sandbox-bound");
		expect((await stat(path)).ino).toBe(inode);
		expect(await readFile(path, "utf8")).toBe("new\n");
		release();
		release(); // a second call does nothing
		expect(isBoundPath(path)).toBe(false);
		const free = await writeFileAtomic(path, "newer\n");
		expect(free.inPlace).toBeUndefined();
		expect((await stat(path)).ino).not.toBe(inode);
	});

	it("stay held while any holder lives", async () => {
		const path = join(temp(), "tools", "..", "x.sh");
		const first = holdBoundPaths([join(temp(), "x.sh")]);
		const second = holdBoundPaths([path]);
		first();
		expect(isBoundPath(join(temp(), "x.sh"))).toBe(true);
		second();
		expect(isBoundPath(join(temp(), "x.sh"))).toBe(false);
	});

	it.each([
		["local", () => localFileOperations],
		[
			"confined",
			async () =>
				createFdConfinedOperations(localFileOperations, [await realPathOf(localFileOperations, temp())]) ??
				localFileOperations,
		],
	])("are not removed or renamed through %s operations (EBUSY)", async (_name, operationsOf) => {
		const operations = await operationsOf();
		const root = await realPathOf(localFileOperations, temp());
		const [bound, other] = [join(root, ".mcp.json"), join(root, "other.json")];
		await writeFile(bound, "{}");
		await writeFile(other, "{}");
		const release = holdBoundPaths([bound]);
		try {
			await expect(operations.unlink(bound)).rejects.toMatchObject({ code: "EBUSY" });
			await expect(operations.rename(bound, join(root, "moved.json"))).rejects.toMatchObject({ code: "EBUSY" });
			await expect(operations.rename(other, bound)).rejects.toMatchObject({ code: "EBUSY" });
			expect(await readFile(bound, "utf8")).toBe("{}");
		} finally {
			release();
		}
		await operations.rename(other, bound);
		await operations.unlink(bound);
	});
});
