import type { FileInfo } from "../../files/contract.js";
import { ripgrepGrep, ripgrepListFiles } from "../../local/index.js";
import type { SearchOperations, SearchStream } from "../../search/types.js";
import { explainMoved } from "../files/enter-folder.js";
import { type RemoteRunResult, runRemote } from "../transport/run-remote.js";
import type { ScriptChannel } from "../transport/script-channel.js";
import type { RemoteTransport } from "../transport/transport.js";
import { toExtendedRegex } from "./posix-pattern.js";
import { posixGrep, posixListFiles } from "./posix-search.js";
import { type RemoteRipgrepMode, remoteRipgrep } from "./remote-ripgrep.js";
import { createRipgrepConnections } from "./ripgrep-connections.js";

/** Options of `createRemoteSearchOperations`. */
export interface RemoteSearchOptions {
	/** The channel for the small calls (stat, finding ripgrep). Default: a process per call. */
	channel?: ScriptChannel;
	/** Which ripgrep may be used (see `RemoteRipgrepMode`). Default: `auto`. */
	ripgrep?: RemoteRipgrepMode;
	/**
	 * The workspace's stat, whose answer the folder's resolution just fetched (see `MetadataCache`):
	 * the search's check of its root then costs no round trip. Default: a remote test of its own.
	 */
	stat?: (absolutePath: string) => Promise<FileInfo>;
}

/**
 * grep and find for a remote workspace: ripgrep runs on the remote side (its own `rg`, or the
 * bundled one copied once into `~/.cache/toolbelt` there when the OS and architecture match,
 * checksum verified), with the same arguments and output parsing as locally. Without ripgrep,
 * POSIX `find` and `grep` there, with the same ignore rules (the local walker over a snapshot of
 * the remote tree) and the same result shape; the result's `fallbackReason` says why.
 */
export function createRemoteSearchOperations(
	transport: RemoteTransport,
	options: RemoteSearchOptions = {},
): SearchOperations & { prepare(): void; close(): void } {
	const { channel } = options;
	const run = (script: string, args: string[]) =>
		channel ? channel.run(script, args) : runRemote(transport, script, args);
	let located: Promise<{ path: string } | { reason: string }> | undefined;
	const connections = createRipgrepConnections(transport);
	const prepare = () => {
		if (options.ripgrep === "never") return;
		// The lookup rides the shell beside the folder's resolution instead of after it.
		void ripgrep().catch(() => {});
		connections.prepare();
	};
	const ripgrep = (): Promise<{ path: string } | { reason: string }> => {
		located ??= remoteRipgrep(transport, run, options.ripgrep ?? "auto").catch((error: Error) => {
			located = undefined;
			throw error;
		});
		return located;
	};
	const fallbackReason = (reason: string) =>
		`${reason}; POSIX find and grep on ${transport.label} answered instead (the same ignore rules; grep -E regular expressions)`;
	return {
		stat: async (absolutePath) => {
			prepare();
			return rootInfo(absolutePath, options.stat, run);
		},
		grep: async (request, signal) =>
			searchWith(
				await ripgrep(),
				request,
				// Every thread first: a remote ripgrep that was stopped runs on until its next write
				// fails, so a trial of the path-ordered one would cost the remote side twice.
				(rgPath) => ripgrepGrep(rgPath, request, signal, connections.launcherFor(request), { everyThreadFirst: true }),
				() => {
					// A pattern with no POSIX form throws here, before the walk starts.
					if (!request.literal) toExtendedRegex(request.pattern);
					return posixGrep(transport, run, request, signal);
				},
				fallbackReason,
			),
		listFiles: async (request, signal) =>
			searchWith(
				await ripgrep(),
				request,
				(rgPath) => ripgrepListFiles(rgPath, request, signal, connections.launcherFor(request)),
				() => posixListFiles(transport, run, request, signal),
				fallbackReason,
			),
		prepare,
		close: () => connections.close(),
	};
}

/**
 * Whether the search root is a folder, a file, or not there: from the workspace's stat when given
 * (its answer usually fetched with the folder's resolution a moment before), else a remote test.
 */
async function rootInfo(
	absolutePath: string,
	stat: RemoteSearchOptions["stat"],
	run: (script: string, args: string[]) => Promise<RemoteRunResult>,
): Promise<{ isDirectory: boolean } | undefined> {
	if (stat) {
		const info = await stat(absolutePath).catch((error: NodeJS.ErrnoException) => {
			// Not there, or not reachable (as the remote test answers): no such root. Anything else
			// (a dropped connection) is told.
			if (["ENOENT", "ENOTDIR", "EACCES", "ELOOP"].includes(error.code ?? "")) return undefined;
			throw error;
		});
		return info && { isDirectory: info.kind === "directory" };
	}
	const result = await run(`[ -e "$1" ] || exit 1; [ -d "$1" ] && echo d || echo f`, [absolutePath]);
	return result.exitCode === 0 ? { isDirectory: result.stdout.toString().trim() === "d" } : undefined;
}

/**
 * One search: by the remote ripgrep where one was found (in path order when asked, as `--sort
 * path` gives it), else by the POSIX fallback, whose stream says why it answers. A folder found
 * moved since its check fails with an error that says so (see `explainMoved`).
 */
async function searchWith<TItem>(
	found: { path: string } | { reason: string },
	request: { root: string; realRoot?: string; pathOrder?: boolean },
	byRipgrep: (rgPath: string) => Promise<SearchStream<TItem>["items"]>,
	byFallback: () => SearchStream<TItem>["items"],
	fallbackReason: (reason: string) => string,
): Promise<SearchStream<TItem>> {
	if ("path" in found) {
		const items = explainingMoved(await byRipgrep(found.path), request);
		return { backend: "ripgrep", pathOrdered: request.pathOrder === true, items };
	}
	// The fallback walks in path order, as the local walker does: a caller with a limit may stop early.
	const items = explainingMoved(byFallback(), request);
	return { backend: "walker", fallbackReason: fallbackReason(found.reason), pathOrdered: true, items };
}

async function* explainingMoved<TItem>(
	items: SearchStream<TItem>["items"],
	request: { root: string; realRoot?: string },
): AsyncGenerator<readonly TItem[]> {
	try {
		yield* items;
	} catch (error) {
		throw explainMoved(error, request);
	}
}
