import { execFileSync } from "node:child_process";
import { readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type FileOperations,
	infoIfExists,
	localFileOperations as operations,
	SYNC_READ_RUN_BYTES,
} from "../../../src/workspace/local/files/operations.js";
import { useTempDir } from "../../helpers/temp-dir.js";

describe("localFileOperations", () => {
	const dir = useTempDir();

	it("reads small files (synchronous path) and large ones (thread pool) byte for byte", async () => {
		const small = Buffer.from("héllo\nworld\n");
		const large = Buffer.alloc(5 * 2 ** 20, "abc\n");
		writeFileSync(join(dir(), "small"), small);
		writeFileSync(join(dir(), "large"), large);
		writeFileSync(join(dir(), "empty"), "");
		expect((await operations.readFile(join(dir(), "small"))).equals(small)).toBe(true);
		expect((await operations.readFile(join(dir(), "large"))).equals(large)).toBe(true);
		expect((await operations.readFile(join(dir(), "empty"))).length).toBe(0);
	});

	it("rejects with the POSIX code for a missing file, a directory and an existing exclusive target", async () => {
		await expect(operations.readFile(join(dir(), "missing"))).rejects.toMatchObject({ code: "ENOENT" });
		await expect(operations.readFile(dir())).rejects.toMatchObject({ code: "EISDIR" });
		await expect(operations.stat(join(dir(), "missing", "x"))).rejects.toMatchObject({ code: "ENOENT" });
		writeFileSync(join(dir(), "taken"), "old");
		await expect(
			operations.writeFile(join(dir(), "taken"), Buffer.from("new"), { exclusive: true }),
		).rejects.toMatchObject({ code: "EEXIST" });
		expect(readFileSync(join(dir(), "taken"), "utf8")).toBe("old");
	});

	it("creates files with the requested mode, small and large", async () => {
		for (const [name, size] of [
			["small", 10],
			["large", 5 * 2 ** 20],
		] as const) {
			const path = join(dir(), name);
			await operations.writeFile(path, Buffer.alloc(size, "x"), { exclusive: true, mode: 0o600 });
			expect(statSync(path).size).toBe(size);
			expect(statSync(path).mode & 0o777).toBe(0o600);
		}
	});

	it("reads an opened large file byte for byte, letting the event loop turn between synchronous runs", async () => {
		// Chunks of an odd size, so reads straddle the runs' ends; every 4-byte word holds its own offset.
		const size = 3 * SYNC_READ_RUN_BYTES + 12345;
		const content = Buffer.alloc(size);
		for (let at = 0; at + 4 <= size; at += 4) content.writeUInt32LE(at, at);
		writeFileSync(join(dir(), "long"), content);
		let turned = false;
		setImmediate(() => {
			turned = true;
		});
		const file = await operations.open(join(dir(), "long"));
		const copy = Buffer.alloc(size + 10);
		try {
			let position = 0;
			for (;;) {
				const length = Math.min(300_001, copy.length - position);
				const count = await file.read({ buffer: copy, offset: position, length, position });
				if (count === 0) break;
				position += count;
			}
			expect(position).toBe(size);
			// Read with synchronous calls alone, the reads' promises resolve without a turn of the loop.
			expect(turned).toBe(true);
		} finally {
			await file.close();
		}
		expect(copy.subarray(0, size).equals(content)).toBe(true);
	});

	it("hands a FIFO to the thread pool instead of blocking the event loop", async () => {
		const fifo = join(dir(), "fifo");
		execFileSync("mkfifo", [fifo]);
		const info = await operations.stat(fifo);
		expect(info.kind).toBe("other");
		// Nobody writes: the read waits in the thread pool while timers still run.
		const read = operations.readFile(fifo);
		const tick = await new Promise<string>((resolve) => setTimeout(() => resolve("loop alive"), 20));
		expect(tick).toBe("loop alive");
		writeFileSync(fifo, "through the pipe");
		expect((await read).toString()).toBe("through the pipe");
	});

	it("looks a path up without an error when nothing is there, with and without statIfExists", async () => {
		const { statIfExists: _own, ...withoutLookup } = operations;
		const backends: FileOperations[] = [operations, withoutLookup];
		writeFileSync(join(dir(), "file"), "x");
		symlinkSync(join(dir(), "file"), join(dir(), "link"));
		symlinkSync(join(dir(), "nowhere"), join(dir(), "dangling"));
		symlinkSync(join(dir(), "loop"), join(dir(), "loop"));
		for (const backend of backends) {
			expect(await infoIfExists(backend, join(dir(), "missing"))).toBeUndefined();
			// A parent that is a file (ENOTDIR) is "not there" too.
			expect(await infoIfExists(backend, join(dir(), "file", "below"))).toBeUndefined();
			expect((await infoIfExists(backend, join(dir(), "link")))?.kind).toBe("file");
			expect((await infoIfExists(backend, join(dir(), "link"), { noFollow: true }))?.kind).toBe("symlink");
			expect(await infoIfExists(backend, join(dir(), "dangling"))).toBeUndefined();
			expect((await infoIfExists(backend, join(dir(), "dangling"), { noFollow: true }))?.kind).toBe("symlink");
			expect((await infoIfExists(backend, join(dir(), "file")))?.size).toBe(1);
			// Anything but "not there" still rejects.
			await expect(infoIfExists(backend, join(dir(), "loop"))).rejects.toMatchObject({ code: "ELOOP" });
		}
	});
});
