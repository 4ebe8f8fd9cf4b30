import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { createLsTool } from "../../../src/tools/ls.js";
import { createReadTool } from "../../../src/tools/read.js";
import { createWriteTool } from "../../../src/tools/write.js";
import type { DirectoryEntry, FileInfo, FileOperations } from "../../../src/workspace/local/files/operations.js";
import { type HasContent, resultText } from "../../helpers/results.js";

/**
 * A workspace that is not the local disk (as an SSH or container workspace would be): files live
 * in a map, so any tool that bypassed `FileOperations` would fail to find them.
 */
function memoryOperations(files: Record<string, string>): FileOperations & { files: Map<string, Buffer> } {
	const store = new Map(Object.entries(files).map(([path, text]) => [path, Buffer.from(text)]));
	const fail = (code: string, path: string) => Object.assign(new Error(`${code}: ${path}`), { code });
	const isDirectory = (path: string) => [...store.keys()].some((file) => file.startsWith(`${path}/`)) || path === "/";
	const info = (path: string): FileInfo => {
		const data = store.get(path);
		if (data) return { kind: "file", size: data.length, mode: 0o644, mtimeMs: 0 };
		if (isDirectory(path)) return { kind: "directory", size: 0, mode: 0o755, mtimeMs: 0 };
		throw fail("ENOENT", path);
	};
	return {
		files: store,
		stat: async (path) => info(path),
		lstat: async (path) => info(path),
		realpath: async (path) => {
			info(path);
			return path;
		},
		readlink: async (path) => {
			throw fail("EINVAL", path);
		},
		readdir: async (path) => {
			if (!isDirectory(path)) throw fail("ENOENT", path);
			const names = new Map<string, DirectoryEntry>();
			for (const file of store.keys()) {
				if (!file.startsWith(`${path}/`)) continue;
				const [name, ...rest] = file.slice(path.length + 1).split("/");
				if (name) names.set(name, { name, kind: rest.length > 0 ? "directory" : "file" });
			}
			return [...names.values()];
		},
		open: async (path) => {
			const data = store.get(path);
			if (!data) throw fail("ENOENT", path);
			return {
				read: async ({ buffer, offset, length, position }) => data.copy(buffer, offset, position, position + length),
				close: async () => {},
			};
		},
		readFile: async (path) => {
			const data = store.get(path);
			if (!data) throw fail("ENOENT", path);
			return data;
		},
		writeFile: async (path, data, options) => {
			if (options?.exclusive && store.has(path)) throw fail("EEXIST", path);
			store.set(path, Buffer.from(data));
		},
		mkdir: async () => {},
		rename: async (from, to) => {
			const data = store.get(from);
			if (!data) throw fail("ENOENT", from);
			store.set(to, data);
			store.delete(from);
		},
		unlink: async (path) => {
			store.delete(path);
		},
		chmod: async () => {},
	};
}

const text = (result: HasContent) => resultText(result);

describe("FileOperations: the file tools work against any workspace", () => {
	it("reads, writes and lists through injected operations only", async () => {
		const operations = memoryOperations({
			"/remote/project/src/a.ts": "export {};\n",
			"/remote/project/README": "hi\n",
		});
		const cwd = "/remote/project";
		expect(text(await createReadTool(cwd, { operations }).execute("1", { path: "src/a.ts" }, undefined))).toBe(
			"     1\texport {};",
		);
		const written = await createWriteTool(cwd, { operations }).execute(
			"1",
			{ path: "src/b.ts", content: "b\n" },
			undefined,
		);
		expect(written.details).toMatchObject({ created: true, bytes: 2 });
		expect(operations.files.get(posix.join(cwd, "src/b.ts"))?.toString()).toBe("b\n");
		expect([...operations.files.keys()].filter((path) => path.includes(".tmp"))).toEqual([]);
		expect(text(await createLsTool(cwd, { operations }).execute("1", { recursive: true }, undefined))).toBe(
			"README\nsrc/\nsrc/a.ts\nsrc/b.ts",
		);
		await expect(createReadTool(cwd, { operations }).execute("1", { path: "src/c.ts" }, undefined)).rejects.toThrow(
			"File not found: src/c.ts\nDid you mean: src/a.ts, src/b.ts?",
		);
	});
});
