import { join } from "node:path";
import type { ToolTarget } from "../../engine/index.js";
import { errorMessage, ToolError } from "../../engine/index.js";
import type { SearchStream } from "../../workspace/index.js";
import { isWorkspaceTarget, type Workspace } from "../../workspace/index.js";
import { withoutHidden } from "./hidden-filter.js";
import { runSearch, type SearchRunResult } from "./run-search.js";

/** How a search request reaches the folder the guards checked: spread into the request. */
export interface OpenedFolder {
	/** The pinned path of the folder (see `GrepRequest.openedRoot`). */
	openedRoot: string;
	/** Its checked real path, where it could not be held open (see `GrepRequest.realRoot`). */
	realRoot?: string;
}

/** Options of `runPinnedSearch`. */
export interface PinnedSearchOptions<TItem> {
	/** The workspace the folder belongs to. */
	workspace: Workspace;
	/** The call's target as the engine carried it (confined and filtered by the guards, or undefined). */
	callTarget: ToolTarget | undefined;
	/** The folder to search (absolute) and how messages name it. */
	root: string;
	display: string;
	/** Starts the backend in the folder as pinned (see `OpenedFolder`). */
	start: (opened: OpenedFolder, signal: AbortSignal) => Promise<SearchStream<TItem>>;
	/** The path of an item relative to `root`, for the read-deny filter. */
	pathOf: (item: TItem) => string;
	/** Receives each batch; false stops the search. */
	onBatch: (batch: readonly TItem[]) => boolean;
	signal: AbortSignal | undefined;
	timeoutMs: number;
}

/**
 * Runs a search (grep, find) in the folder the guards checked: pinned when the call is confined,
 * so a link swapped after the check cannot redirect the walk, and without the entries a read
 * deny rule hides, the same on every backend.
 */
export async function runPinnedSearch<TItem>(options: PinnedSearchOptions<TItem>): Promise<SearchRunResult> {
	const { root, callTarget } = options;
	const hides = isWorkspaceTarget(callTarget) ? callTarget.hides : undefined;
	const folder = await options.workspace.pinFolder(root, callTarget).catch((error: unknown) => {
		throw new ToolError(errorMessage(error), { path: options.display });
	});
	try {
		return await runSearch({
			start: async (signal) =>
				withoutHidden(
					await options.start(
						folder.realPath === undefined
							? { openedRoot: folder.path }
							: { openedRoot: folder.path, realRoot: folder.realPath },
						signal,
					),
					(item) => join(root, options.pathOf(item)),
					hides,
				),
			onBatch: options.onBatch,
			signal: options.signal,
			timeoutMs: options.timeoutMs,
		});
	} finally {
		folder.release();
	}
}
