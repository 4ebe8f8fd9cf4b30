import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { type RipgrepLauncher, signalChild } from "../../local/index.js";
import { enterFolderArguments, enterFolderScript } from "../files/enter-folder.js";
import { shellQuoteOneLine } from "../transport/shell-quote.js";
import type { RemoteTransport } from "../transport/transport.js";

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

/** The connections remote ripgrep runs in (see `createRipgrepConnections`). */
export interface RipgrepConnections {
	/** Opens a spare connection for the next search unless one is open or opening. */
	prepare(): void;
	/** The launcher of one search request: its folder's checked real path goes with it. */
	launcherFor(request: { realRoot?: string }): RipgrepLauncher;
	/** Kills the spare connection; none opens after. */
	close(): void;
}

/**
 * Where remote ripgrep runs: in a spare connection opened while the calls before the search ran
 * (when a folder is resolved for listing, at stat, and after each search), else in one opened
 * for it. The remote side enters the folder itself (`enterFolderScript`).
 */
export function createRipgrepConnections(transport: RemoteTransport): RipgrepConnections {
	let spare: ChildProcessWithoutNullStreams | undefined;
	let closed = false;
	let opening = false;
	const running = (child: ChildProcessWithoutNullStreams | undefined): child is ChildProcessWithoutNullStreams =>
		child !== undefined && child.exitCode === null && child.signalCode === null;
	const open = () => {
		if (closed) {
			opening = false;
			return;
		}
		transport.spawn(spareScript, []).then(
			(child) => {
				opening = false;
				child.stdin.on("error", () => {});
				if (spare || closed) signalChild(child, "SIGKILL");
				else spare = child;
			},
			() => {
				opening = false;
			},
		);
	};
	const prepare = () => {
		if (closed || opening || running(spare)) return;
		spare = undefined;
		opening = true;
		// After this turn's other work: the folder's resolution, which the search waits for first,
		// starts its connection in it (each start forks this process, 2–3 ms with the loop blocked).
		setImmediate(open);
	};
	const launcherFor =
		(request: { realRoot?: string }): RipgrepLauncher =>
		async (rgPath, given, cwd) => {
			// Only the flag (before the pattern), never a pattern that reads the same.
			const flagsEnd = given.findIndex((arg) => arg === "--regexp" || arg === "--");
			const args = given.filter((arg, index) => arg !== "--no-ignore-parent" || (flagsEnd !== -1 && index > flagsEnd));
			const words = [...enterFolderArguments({ root: cwd, realRoot: request.realRoot }), rgPath, ...args];
			const ready = spare;
			spare = undefined;
			let child: ChildProcessWithoutNullStreams;
			if (running(ready)) {
				ready.stdin.end(`${words.map(shellQuoteOneLine).join(" ")}\n`);
				// The process runs already: its "spawn" event is long past, and the runner waits for one.
				process.nextTick(() => ready.emit("spawn"));
				child = ready;
			} else {
				child = await transport.spawn(launchScript, words);
				child.stdin.end();
			}
			// The next search finds its connection ready too. Started when this one ends, not beside it:
			// a connection's start (ssh, sshd, a shell) would take its CPU from the search.
			child.once("close", prepare);
			return child;
		};
	return {
		prepare,
		launcherFor,
		close: () => {
			closed = true;
			if (spare) signalChild(spare, "SIGKILL");
			spare = undefined;
		},
	};
}
