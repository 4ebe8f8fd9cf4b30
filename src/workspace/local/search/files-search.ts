import type { FileOperations } from "../../files/contract.js";
import { loadedLazily } from "../../search/lazy-stream.js";
import type { GrepLine, GrepRequest, ListFilesRequest, SearchOperations, SearchStream } from "../../search/types.js";
import type { ScanFileHandle } from "./scan-file-handle.js";
import type { WalkEntry } from "./walker.js";
import type { GrepSource } from "./walker-grep.js";

/** A file of `files` read from its start, in the shape the walker's scanner reads. */
async function openThrough(files: FileOperations, path: string): Promise<ScanFileHandle> {
	const file = await files.open(path);
	let position = 0;
	return {
		read: async (buffer, offset, length) => {
			const bytesRead = await file.read({ buffer, offset, length, position });
			position += bytesRead;
			return { bytesRead };
		},
		close: () => file.close(),
	};
}

/** The walker's view of `files`: folders (links not followed, as ripgrep does), ignore files, files. */
function sourceOf(files: FileOperations): GrepSource {
	return {
		readdir: async (path) =>
			(await files.readdir(path)).map(
				(entry): WalkEntry => ({
					name: entry.name,
					isFile: () => entry.kind === "file",
					isDirectory: () => entry.kind === "directory",
				}),
			),
		readText: async (path) => (await files.readFile(path)).toString("utf8"),
		open: (path) => openThrough(files, path),
	};
}

/**
 * grep and find over any `FileOperations`: the built-in walker and line search (ripgrep's rules:
 * ignore files, hidden files searched, `.git` skipped, links not followed), reading only through
 * `files`. For a workspace whose files have no search of their own where they live (an in-memory
 * or virtual one), so its searches never read this machine's disk.
 */
export function searchThroughFiles(files: FileOperations): SearchOperations {
	const source = sourceOf(files);
	return {
		stat: async (absolutePath) => {
			try {
				return { isDirectory: (await files.stat(absolutePath)).kind === "directory" };
			} catch {
				return undefined;
			}
		},
		grep: async (request: GrepRequest, signal: AbortSignal): Promise<SearchStream<GrepLine>> => ({
			backend: "walker",
			pathOrdered: true,
			items: loadedLazily(async () => (await import("./walker-grep.js")).walkerGrep(request, signal, source)),
		}),
		listFiles: async (request: ListFilesRequest, signal: AbortSignal): Promise<SearchStream<string>> => ({
			backend: "walker",
			pathOrdered: true,
			items: loadedLazily(async () => {
				const walker = await import("./walker.js");
				return walker.walkFiles(walker.walkOptionsOf(request, signal, source));
			}),
		}),
	};
}
