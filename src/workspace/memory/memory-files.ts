import { posix } from "node:path";
import type { DirectoryEntry, FileInfo, FileOperations, ReadableFile, WriteFileOptions } from "../files/contract.js";

type MemoryNode =
	| { kind: "file"; data: Buffer; mode: number; mtimeMs: number }
	| { kind: "directory"; mode: number; mtimeMs: number }
	| { kind: "symlink"; target: string; mode: number; mtimeMs: number };

/** Most links one look-up follows before it fails with `ELOOP`, as the kernel does. */
const MAX_LINKS = 40;

function fail(code: string, path: string): never {
	throw Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * A file system held in memory, with POSIX paths: a real backend of the `FileOperations`
 * contract that reaches no disk at all, for tests and virtual workspaces. Files, folders and
 * symlinks behave as on a disk (links are followed by `stat`, `realpath`, `open` and writes;
 * failures carry the POSIX codes the tools turn into messages). Hard links are not modelled.
 */
export class MemoryFiles implements FileOperations {
	private readonly nodes = new Map<string, MemoryNode>([["/", { kind: "directory", mode: 0o755, mtimeMs: 1 }]]);
	private clock = 1;

	/** Creates (or replaces) a file with `content`, and its folders. */
	put(path: string, content: string | Uint8Array, mode = 0o644): void {
		this.makeFolders(posix.dirname(path));
		const data = Buffer.from(content);
		this.nodes.set(posix.resolve(path), { kind: "file", data, mode, mtimeMs: this.tick() });
	}

	/** The content of the file at `path` (links followed), or undefined when there is none. */
	get(path: string): Buffer | undefined {
		try {
			const node = this.nodes.get(this.resolveReal(path));
			return node?.kind === "file" ? Buffer.from(node.data) : undefined;
		} catch {
			return undefined;
		}
	}

	/**
	 * Every entry below `folder` (links not followed), keyed by its path relative to it: a file as
	 * its mode and content, a link as its target, a folder as `dir`. For comparing states in tests.
	 */
	snapshot(folder: string): Record<string, string> {
		const root = posix.resolve(folder);
		const prefix = root === "/" ? "/" : `${root}/`;
		const result: Record<string, string> = {};
		for (const [path, node] of [...this.nodes.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
			if (!path.startsWith(prefix)) continue;
			const key = path.slice(prefix.length);
			if (node.kind === "file") result[key] = `${node.mode.toString(8)} ${node.data.toString("base64")}`;
			else if (node.kind === "symlink") result[key] = `link -> ${node.target}`;
			else result[key] = "dir";
		}
		return result;
	}

	private tick(): number {
		this.clock += 1;
		return this.clock;
	}

	/** Creates a folder and its parents (nothing happens when it exists). */
	putFolder(path: string): void {
		this.makeFolders(path);
	}

	private makeFolders(path: string): void {
		const absolute = posix.resolve(path);
		const node = this.nodes.get(absolute);
		if (node?.kind === "directory") return;
		if (node) fail("ENOTDIR", path);
		if (absolute !== "/") this.makeFolders(posix.dirname(absolute));
		this.nodes.set(absolute, { kind: "directory", mode: 0o755, mtimeMs: this.tick() });
	}

	/** Every link of `path` resolved; fails with ENOENT, ENOTDIR or ELOOP as a disk would. */
	private resolveReal(path: string, hops = 0): string {
		if (hops > MAX_LINKS) fail("ELOOP", path);
		const parts = posix.resolve(path).split("/").filter(Boolean);
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

	/** The path of the entry itself: its folder's links resolved, its own name kept. */
	private entryPath(path: string): string {
		const absolute = posix.resolve(path);
		if (absolute === "/") return "/";
		return posix.join(this.resolveReal(posix.dirname(absolute)), posix.basename(absolute));
	}

	/** Where a write to `path` lands: through a link at that name to wherever it points. */
	private writePath(path: string, hops = 0): string {
		if (hops > MAX_LINKS) fail("ELOOP", path);
		const entry = this.entryPath(path);
		const node = this.nodes.get(entry);
		if (node?.kind !== "symlink") return entry;
		return this.writePath(posix.resolve(posix.dirname(entry), node.target), hops + 1);
	}

	private infoOf(node: MemoryNode): FileInfo {
		const size = node.kind === "file" ? node.data.length : node.kind === "symlink" ? node.target.length : 4096;
		return { kind: node.kind, size, mode: node.mode, mtimeMs: node.mtimeMs, links: 1 };
	}

	private fileAt(path: string): Extract<MemoryNode, { kind: "file" }> {
		const node = this.nodes.get(this.resolveReal(path));
		if (node?.kind === "directory") fail("EISDIR", path);
		return node as Extract<MemoryNode, { kind: "file" }>;
	}

	async stat(path: string): Promise<FileInfo> {
		return this.infoOf(this.nodes.get(this.resolveReal(path)) as MemoryNode);
	}

	async lstat(path: string): Promise<FileInfo> {
		const node = this.nodes.get(this.entryPath(path));
		if (!node) fail("ENOENT", path);
		return this.infoOf(node);
	}

	async realpath(path: string): Promise<string> {
		return this.resolveReal(path);
	}

	async readlink(path: string): Promise<string> {
		const node = this.nodes.get(this.entryPath(path));
		if (!node) fail("ENOENT", path);
		if (node.kind !== "symlink") fail("EINVAL", path);
		return node.target;
	}

	async readdir(path: string): Promise<DirectoryEntry[]> {
		const real = this.resolveReal(path);
		if (this.nodes.get(real)?.kind !== "directory") fail("ENOTDIR", path);
		const prefix = real === "/" ? "/" : `${real}/`;
		const entries: DirectoryEntry[] = [];
		for (const [key, node] of this.nodes) {
			const name = key.slice(prefix.length);
			if (key !== real && key.startsWith(prefix) && !name.includes("/")) entries.push({ name, kind: node.kind });
		}
		return entries;
	}

	async open(path: string): Promise<ReadableFile> {
		// The content as it was when opened: a later write replaces the buffer, as a rename would.
		const data = this.fileAt(path).data;
		return {
			read: async ({ buffer, offset, length, position }) => {
				const chunk = data.subarray(position, position + length);
				buffer.set(chunk, offset);
				return chunk.length;
			},
			close: async () => {},
		};
	}

	async readFile(path: string): Promise<Buffer> {
		return Buffer.from(this.fileAt(path).data);
	}

	async writeFile(path: string, data: Uint8Array, options: WriteFileOptions = {}): Promise<void> {
		const target = options.exclusive ? this.entryPath(path) : this.writePath(path);
		const existing = this.nodes.get(target);
		if (existing && options.exclusive) fail("EEXIST", path);
		if (existing?.kind === "directory") fail("EISDIR", path);
		if (!existing && this.nodes.get(this.resolveReal(posix.dirname(target)))?.kind !== "directory")
			fail("ENOENT", path);
		const mode = existing?.mode ?? (options.mode ?? 0o666) & 0o755;
		this.nodes.set(target, { kind: "file", data: Buffer.from(data), mode, mtimeMs: this.tick() });
	}

	async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
		if (options.recursive) return this.makeFolders(this.writePathOrSelf(path));
		const entry = this.entryPath(path);
		if (this.nodes.has(entry)) fail("EEXIST", path);
		this.nodes.set(entry, { kind: "directory", mode: 0o755, mtimeMs: this.tick() });
	}

	/** For a recursive mkdir: the folders that exist are entered through their links. */
	private writePathOrSelf(path: string): string {
		try {
			return this.resolveReal(path);
		} catch {
			const absolute = posix.resolve(path);
			if (absolute === "/") return absolute;
			return posix.join(this.writePathOrSelf(posix.dirname(absolute)), posix.basename(absolute));
		}
	}

	async rename(from: string, to: string): Promise<void> {
		const source = this.entryPath(from);
		const node = this.nodes.get(source);
		if (!node) fail("ENOENT", from);
		const destination = this.entryPath(to);
		if (this.nodes.get(destination)?.kind === "directory" && node.kind !== "directory") fail("EISDIR", to);
		if (posix.dirname(destination) !== "/" && !this.nodes.has(posix.dirname(destination))) fail("ENOENT", to);
		// A folder moves with everything below it.
		const moved = [...this.nodes.entries()].filter(([key]) => key === source || key.startsWith(`${source}/`));
		for (const [key] of moved) this.nodes.delete(key);
		for (const [key, value] of moved) this.nodes.set(destination + key.slice(source.length), value);
	}

	async unlink(path: string): Promise<void> {
		const entry = this.entryPath(path);
		const node = this.nodes.get(entry);
		if (!node) fail("ENOENT", path);
		if (node.kind === "directory") fail("EISDIR", path);
		this.nodes.delete(entry);
	}

	/** Removes the empty folder at `path` (ENOTDIR for anything else, ENOTEMPTY when it holds entries). */
	async rmdir(path: string): Promise<void> {
		const entry = this.entryPath(path);
		const node = this.nodes.get(entry);
		if (!node) fail("ENOENT", path);
		if (node.kind !== "directory") fail("ENOTDIR", path);
		for (const key of this.nodes.keys()) if (key.startsWith(`${entry}/`)) fail("ENOTEMPTY", path);
		this.nodes.delete(entry);
	}

	async chmod(path: string, mode: number): Promise<void> {
		const node = this.nodes.get(this.resolveReal(path));
		if (node) node.mode = mode & 0o7777;
	}

	async symlink(target: string, path: string): Promise<void> {
		const entry = this.entryPath(path);
		if (this.nodes.has(entry)) fail("EEXIST", path);
		this.nodes.set(entry, { kind: "symlink", target, mode: 0o777, mtimeMs: this.tick() });
	}

	/** Makes a symlink at `path` (and its folders) that points to `target`, replacing what was there. */
	link(path: string, target: string): void {
		this.makeFolders(posix.dirname(path));
		this.nodes.set(posix.resolve(path), { kind: "symlink", target, mode: 0o777, mtimeMs: this.tick() });
	}
}
