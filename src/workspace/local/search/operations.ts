import { statSync } from "node:fs";
import { ToolError } from "../../../engine/index.js";
import { loadedLazily } from "../../search/lazy-stream.js";
import type {
	GrepLine,
	GrepRequest,
	ListFilesRequest,
	SearchBackendName,
	SearchOperations,
	SearchStream,
} from "../../search/types.js";
import { ripgrepGrep, ripgrepListFiles } from "./ripgrep-backend.js";
import { prepareRipgrepPair } from "./ripgrep-pair.js";
import { locateRipgrep } from "./ripgrep-path.js";

/** Options of the default search operations. */
export interface SearchOperationsOptions {
	/** Path of an `rg` binary to use instead of the one from `@vscode/ripgrep`. Default: the bundled binary. */
	rgPath?: string;
	/** `auto` runs ripgrep and falls back to the walker when ripgrep is missing or fails to start. Default: `auto`. */
	backend?: "auto" | SearchBackendName;
}

// The walker (with its ignore and glob libraries) loads on the first search that needs it, so
// that a process whose ripgrep runs pays nothing for it. The ripgrep runner is imported with this
// module: the bundle loads its code at start anyway (its chunk holds modules every entry uses), and
// a dynamic import of it cost the process's first search a pass through the module loader (1-7 ms).
/**
 * The local search operations: ripgrep when it can run, the built-in walker otherwise (same
 * ignore rules and output, slower). Forcing `ripgrep` turns a missing binary into an error.
 */
export function createSearchOperations(options: SearchOperationsOptions = {}): SearchOperations {
	const backend = options.backend ?? "auto";

	/** `ripgrepOrdered`: ripgrep was asked for path order; the walker always walks in it. */
	async function withFallback<TItem>(
		runRipgrep: (rgPath: string) => Promise<AsyncIterable<TItem[]>>,
		runWalker: () => AsyncIterable<TItem[]>,
		ripgrepOrdered = false,
	): Promise<SearchStream<TItem>> {
		if (backend === "walker") return { backend: "walker", pathOrdered: true, items: runWalker() };
		const location = await locateRipgrep(options.rgPath);
		let reason: string;
		if (location.path === undefined) {
			reason = location.reason;
		} else {
			try {
				return { backend: "ripgrep", pathOrdered: ripgrepOrdered, items: await runRipgrep(location.path) };
			} catch (error) {
				if (error instanceof ToolError || (error as Error).name === "AbortError") throw error;
				reason = `ripgrep failed to start (${location.path}): ${(error as Error).message}`;
			}
		}
		if (backend === "ripgrep") {
			throw new ToolError(`Cannot search: ${reason}. Install ripgrep or let the tool use its built-in search.`);
		}
		return { backend: "walker", fallbackReason: reason, pathOrdered: true, items: runWalker() };
	}

	return {
		// What the first search needs is found and started now, not inside the call: ripgrep's path
		// (a package look-up reading package.json files, ~0.5 ms) and the shell that starts it
		// (`prepareRipgrepPair`).
		prepareAtCreation:
			backend === "walker"
				? undefined
				: () => {
						void locateRipgrep(options.rgPath);
						prepareRipgrepPair();
					},
		// On the main thread: one system call on metadata (microseconds), where the thread pool would
		// cost a round trip, and on a process's first search would start the pool's threads before
		// ripgrep could.
		async stat(absolutePath) {
			try {
				return { isDirectory: statSync(absolutePath).isDirectory() };
			} catch {
				return undefined;
			}
		},
		grep(request: GrepRequest, signal: AbortSignal): Promise<SearchStream<GrepLine>> {
			return withFallback(
				(rgPath) => ripgrepGrep(rgPath, request, signal),
				() => loadedLazily(async () => (await import("./walker-grep.js")).walkerGrep(request, signal)),
				request.pathOrder === true,
			);
		},
		listFiles(request: ListFilesRequest, signal: AbortSignal): Promise<SearchStream<string>> {
			return withFallback(
				(rgPath) => ripgrepListFiles(rgPath, request, signal),
				() =>
					loadedLazily(async () => {
						const walker = await import("./walker.js");
						return walker.walkFiles(walker.walkOptionsOf(request, signal));
					}),
				request.pathOrder === true,
			);
		},
	};
}
