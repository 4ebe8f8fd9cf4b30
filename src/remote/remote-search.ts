import type { ChildProcessWithoutNullStreams } from "node:child_process";
import {
	type FileInfo,
	type RipgrepLauncher,
	ripgrepGrep,
	ripgrepListFiles,
	type SearchOperations,
	type SearchStream,
} from "../tools/index.js";
import { enterFolderArguments, enterFolderScript, explainMoved } from "./enter-folder.js";
import { toExtendedRegex } from "./posix-pattern.js";
import { posixGrep, posixListFiles } from "./posix-search.js";
import { type RemoteRipgrepMode, remoteRipgrep } from "./remote-ripgrep.js";
import { type RemoteRunResult, runRemote } from "./run-remote.js";
import type { ScriptChannel } from "./script-channel.js";
import { shellQuoteOneLine } from "./shell-quote.js";
import type { RemoteTransport } from "./transport.js";

/**
 * Runs ripgrep in a folder (entered by `enterFolderScript`) with stdin from /dev/null (it would
 * search a readable stdin). Whether an ignore file or a `.git` lies above the folder is judged
 * here, on the remote disk, not by the caller (which looks at its own disk): only without one may
 * ripgrep skip the parents' rules.
 */
const launchScript = `${enterFolderScript}
rg=$1; shift
d=$PWD; above=no
while [ "$d" != / ]; do d=%{d%/*}; d=%{d:-/}; for n in .gitignore .ignore .rgignore .git; do [ -e "$d/$n" ] && above=yes; done; done
[ "$above" = no ] && set -- --no-ignore-parent "$@"
exec "$rg" "$@" < /dev/null`.replaceAll("%{", "${");

/**
 * `launchScript` started ahead of time: it waits for its arguments on one stdin line (`set --`
 * with quoted words), so the connection is up when the search starts.
 */
const spareScript = `nl='
'; IFS= read -r line || exit 0; eval "set -- $line"; ${launchScript}`;

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
	let spare: ChildProcessWithoutNullStreams | undefined;
	// A spare connection for the next ripgrep, set up while the calls before it run: when a
	// folder is resolved for listing (grep, find, ls), at stat, and after each search.
	let closed = false;
	let opening = false;
	const prepare = () => {
		if (closed || opening || options.ripgrep === "never") return;
		// The lookup rides the shell beside the folder's resolution instead of after it.
		void ripgrep().catch(() => {});
		if (spare && spare.exitCode === null && spare.signalCode === null) return;
		spare = undefined;
		opening = true;
		// After this turn's other work: the folder's resolution, which the search waits for first,
		// starts its connection in it (each start forks this process, 2–3 ms with the loop blocked).
		setImmediate(() => {
			if (closed) {
				opening = false;
				return;
			}
			transport.spawn(spareScript, []).then(
				(child) => {
					opening = false;
					child.stdin.on("error", () => {});
					if (spare || closed) child.kill("SIGKILL");
					else spare = child;
				},
				() => {
					opening = false;
				},
			);
		});
	};
	// Per request: the folder's checked real path goes with it (see `enterFolderScript`).
	const launchIn =
		(request: { realRoot?: string }): RipgrepLauncher =>
		async (rgPath, given, cwd) => {
			// Only the flag (before the pattern), never a pattern that reads the same.
			const flagsEnd = given.findIndex((arg) => arg === "--regexp" || arg === "--");
			const args = given.filter((arg, index) => arg !== "--no-ignore-parent" || (flagsEnd !== -1 && index > flagsEnd));
			const ready = spare;
			spare = undefined;
			let child: ChildProcessWithoutNullStreams;
			if (ready && ready.exitCode === null && ready.signalCode === null) {
				const words = [...enterFolderArguments({ root: cwd, realRoot: request.realRoot }), rgPath, ...args];
				ready.stdin.end(`${words.map(shellQuoteOneLine).join(" ")}\n`);
				// The process runs already: its "spawn" event is long past, and the runner waits for one.
				process.nextTick(() => ready.emit("spawn"));
				child = ready;
			} else {
				child = await transport.spawn(launchScript, [
					...enterFolderArguments({ root: cwd, realRoot: request.realRoot }),
					rgPath,
					...args,
				]);
				child.stdin.end();
			}
			// The next search finds its connection ready too. Started when this one ends, not beside it:
			// a connection's start (ssh, sshd, a shell) would take its CPU from the search.
			child.once("close", prepare);
			return child;
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
			void ripgrep().catch(() => {});
			return rootInfo(absolutePath, options.stat, run);
		},
		grep: async (request, signal) =>
			searchWith(
				await ripgrep(),
				request,
				// Every thread first: a remote ripgrep that was stopped runs on until its next write
				// fails, so a trial of the path-ordered one would cost the remote side twice.
				(rgPath) => ripgrepGrep(rgPath, request, signal, launchIn(request), { probeMs: 0 }),
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
				(rgPath) => ripgrepListFiles(rgPath, request, signal, launchIn(request)),
				() => posixListFiles(transport, run, request, signal),
				fallbackReason,
			),
		prepare,
		close: () => {
			closed = true;
			spare?.kill("SIGKILL");
			spare = undefined;
		},
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
