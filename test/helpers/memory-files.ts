import { basename, dirname, posix } from "node:path";
import type { DirectoryEntry, FileInfo, FileOperations } from "../../src/tools/index.js";

type Node =
	| { kind: "file"; data: Buffer; mode: number; mtimeMs: number }
	| { kind: "directory"; mode: number; mtimeMs: number }
	| { kind: "symlink"; target: string; mode: number; mtimeMs: number };

function fail(code: string, path: string): never {
	throw Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * A file system held in memory (POSIX paths), implementing `FileOperations` the way a remote
 * backend would: no call reaches the local disk. Symlinks are followed by `stat`, `realpath`
 * and `open`, as on a real disk. `calls` counts each operation by name.
 */
export class MemoryFiles implements FileOperations {
	readonly nodes = new Map<string, Node>([["/", { kind: "directory", mode: 0o755, mtimeMs: 1 }]]);
	readonly calls = new Map<string, number>();
	private clock = 1;

	private count(name: string): void {
		this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
	}

	/** Creates a file (and its folders). */
	put(path: string, text: string): void {
		this.mkdirSync(dirname(path));
		this.nodes.set(path, { kind: "file", data: Buffer.from(text), mode: 0o644, mtimeMs: ++this.clock });
	}

	/** Creates a symlink. */
	link(path: string, target: string): void {
		this.mkdirSync(dirname(path));
		this.nodes.set(path, { kind: "symlink", target, mode: 0o777, mtimeMs: ++this.clock });
	}

	/** The text of a file, or undefined. */
	text(path: string): string | undefined {
		const node = this.nodes.get(path);
		return node?.kind === "file" ? node.data.toString("utf8") : undefined;
	}

	private mkdirSync(path: string): void {
		if (this.nodes.get(path)?.kind === "directory") return;
		if (path !== "/") this.mkdirSync(dirname(path));
		this.nodes.set(path, { kind: "directory", mode: 0o755, mtimeMs: ++this.clock });
	}

	/** Resolves every symlink of `path`; throws ENOENT when a part is missing. */
	private resolveReal(path: string, hops = 0): string {
		if (hops > 40) fail("ELOOP", path);
		const parts = posix.normalize(path).split("/").filter(Boolean);
		let current = "/";
		for (const [index, part] of parts.entries()) {
			const next = posix.join(current, part);
			const node = this.nodes.get(next);
			if (!node) fail("ENOENT", path);
			if (node.kind === "symlink") {
				const target = posix.resolve(current, node.target);
				return this.resolveReal(posix.join(target, ...parts.slice(index + 1)), hops + 1);
			}
			if (node.kind === "file" && index < parts.length - 1) fail("ENOTDIR", path);
			current = next;
		}
		return current;
	}

	private info(node: Node): FileInfo {
		return {
			kind: node.kind,
			size: node.kind === "file" ? node.data.length : 0,
			mode: node.mode,
			mtimeMs: node.mtimeMs,
		};
	}

	async stat(path: string): Promise<FileInfo> {
		this.count("stat");
		return this.info(this.nodes.get(this.resolveReal(path)) as Node);
	}
	async lstat(path: string): Promise<FileInfo> {
		this.count("lstat");
		const parent = this.resolveReal(dirname(path));
		const node = this.nodes.get(posix.join(parent, basename(path)));
		if (!node) fail("ENOENT", path);
		return this.info(node);
	}
	async realpath(path: string): Promise<string> {
		this.count("realpath");
		return this.resolveReal(path);
	}
	async readlink(path: string): Promise<string> {
		this.count("readlink");
		const node = this.nodes.get(posix.join(this.resolveReal(dirname(path)), basename(path)));
		if (node?.kind !== "symlink") fail("EINVAL", path);
		return node.target;
	}
	async readdir(path: string): Promise<DirectoryEntry[]> {
		this.count("readdir");
		const real = this.resolveReal(path);
		if (this.nodes.get(real)?.kind !== "directory") fail("ENOTDIR", path);
		const prefix = real === "/" ? "/" : `${real}/`;
		return [...this.nodes.entries()]
			.filter(([key]) => key !== real && key.startsWith(prefix) && !key.slice(prefix.length).includes("/"))
			.map(([key, node]) => ({ name: key.slice(prefix.length), kind: node.kind }));
	}
	async open(path: string) {
		this.count("open");
		const node = this.nodes.get(this.resolveReal(path));
		if (node?.kind !== "file") fail("EISDIR", path);
		const data = node.data;
		return {
			read: async (request: { buffer: Uint8Array; offset: number; length: number; position: number }) => {
				const chunk = data.subarray(request.position, request.position + request.length);
				request.buffer.set(chunk, request.offset);
				return chunk.length;
			},
			close: async () => {},
		};
	}
	async readFile(path: string): Promise<Buffer> {
		this.count("readFile");
		const node = this.nodes.get(this.resolveReal(path));
		if (node?.kind !== "file") fail(node ? "EISDIR" : "ENOENT", path);
		return Buffer.from(node.data);
	}
	async writeFile(path: string, data: Uint8Array, options: { mode?: number; exclusive?: boolean } = {}) {
		this.count("writeFile");
		const parent = this.resolveReal(dirname(path));
		const key = posix.join(parent, basename(path));
		if (options.exclusive && this.nodes.has(key)) fail("EEXIST", path);
		this.nodes.set(key, { kind: "file", data: Buffer.from(data), mode: options.mode ?? 0o644, mtimeMs: ++this.clock });
	}
	async mkdir(path: string) {
		this.count("mkdir");
		this.mkdirSync(path);
	}
	async rename(from: string, to: string) {
		this.count("rename");
		const source = posix.join(this.resolveReal(dirname(from)), basename(from));
		const node = this.nodes.get(source);
		if (!node) fail("ENOENT", from);
		this.nodes.delete(source);
		this.nodes.set(posix.join(this.resolveReal(dirname(to)), basename(to)), node);
	}
	async unlink(path: string) {
		this.count("unlink");
		this.nodes.delete(posix.join(this.resolveReal(dirname(path)), basename(path)));
	}
	async chmod(path: string, mode: number) {
		this.count("chmod");
		const node = this.nodes.get(this.resolveReal(path));
		if (node) node.mode = mode;
	}
}
