import { posix } from "node:path";
import { AbortError } from "../../../engine/index.js";
import { signalChild } from "../../local/index.js";
import { GIT_EXCLUDE, IGNORE_FILE_NAMES } from "../../search/ignore-rules.js";
import { enterFolderArguments, enterFolderScript } from "../files/enter-folder.js";
import type { RemoteRunResult } from "../transport/run-remote.js";
import { type RemoteTransport, stderrSummary } from "../transport/transport.js";

/** Runs a small script on the remote side (the script channel, or a process of its own). */
export type RunScript = (script: string, args: string[]) => Promise<RemoteRunResult>;

/**
 * Lists the regular files under `$1` (entered by `enterFolderScript`) in the walker's path order
 * (`comparePaths`: `/` before every other byte, so a folder's files and sub-folders merge by name,
 * depth first), each path ended by a NUL byte: a name may hold a newline, never a NUL. `/` and
 * byte 1 trade places for `sort` in the C locale and trade back after it (a swap, so a name
 * holding byte 1 comes back whole). Where `find -print0` or `sort -z` is missing (both are in
 * GNU, busybox and the BSDs), paths are sorted one a line and those holding a newline are left
 * out, never split. Anything named `.git` is left out and never entered. Symlinks and other kinds
 * are left out, as the local walker leaves them out. `sort` holds the list on the remote side
 * (spilling to disk where it can); this side reads it as it comes.
 */
const sortedListScript = String.raw`
export LC_ALL=C
${enterFolderScript}
if find /dev/null -prune -print0 >/dev/null 2>&1 && [ "$(printf 'b\000a\000' | sort -z 2>/dev/null | tr '\000' ,)" = "a,b," ]; then
	find . -name .git -prune -o -type f -print0 | tr '/\001' '\001/' | sort -z | tr '/\001' '\001/'
	exit
fi
nl='
'
find . \( -name .git -o -name "*$nl*" \) -prune -o -type f -print | tr '/\001' '\001/' | sort | tr '/\001\n' '\001/\000'
`;

/**
 * Prints `PATH\nLENGTH\nTEXT` for each ignore file a walk of `$1` may read (entered by
 * `enterFolderScript`): the files named after the folder's two arguments (those above the root),
 * then every `.gitignore`/`.ignore`/`.rgignore` in the tree and every `.git` folder's
 * `info/exclude` (found with one `find`, `.git` never entered). Unreadable ones are left out. Tree
 * paths are printed `./`-relative.
 */
const ignoreTextsScript = String.raw`
export LC_ALL=C
${enterFolderScript}
text() { if [ -f "$1" ] && [ -r "$1" ]; then v=$(cat -- "$1"; printf x); v=%{v%x}; printf '%s\n%s\n%s' "$1" "%{#v}" "$v"; fi; }
for f; do text "$f"; done
find . \( -name .git -type d -prune -print \) -o \( -name .git -prune \) -o \( -type f \( -name .gitignore -o -name .ignore -o -name .rgignore \) -print \) |
while IFS= read -r f; do case $f in */.git) text "$f/info/exclude";; *) text "$f";; esac; done
`.replaceAll("%{", "${");

/** The ignore files of a remote walk: their texts by absolute path, and which are present per folder. */
export interface RemoteIgnoreFiles {
	/** Text of each readable ignore file, by absolute path (above the root and in the tree). */
	texts: Map<string, string>;
	/** Root-relative folder ('' for the root) → the `IGNORE_FILE_NAMES` entries it holds, as the walker lists them. */
	present: Map<string, string[]>;
}

/** The ignore files above `root` (every ancestor's, up to `/`), which the root's rules read. */
function aboveRoot(root: string): string[] {
	const wanted: string[] = [];
	for (let folder = posix.dirname(root); ; folder = posix.dirname(folder)) {
		for (const name of IGNORE_FILE_NAMES) wanted.push(posix.join(folder, name));
		if (folder === "/") break;
	}
	return wanted;
}

/**
 * Reads every ignore file a walk of `root` may need in one remote call: those above it and those
 * in its tree. Memory holds only these files, however large the tree.
 */
export async function readRemoteIgnoreFiles(
	run: RunScript,
	request: { root: string; realRoot?: string },
): Promise<RemoteIgnoreFiles> {
	const { root } = request;
	const result = await run(ignoreTextsScript, [...enterFolderArguments(request), ...aboveRoot(root)]);
	// Not entered (gone, or moved since its check): a walk without its rules would show ignored files.
	if (result.exitCode !== 0) {
		throw new Error(`Reading the ignore files of ${root} on the remote side failed: ${stderrSummary(result.stderr)}`);
	}
	const texts = new Map<string, string>();
	const present = new Map<string, string[]>();
	const output = result.stdout;
	let position = 0;
	while (position < output.length) {
		const pathEnd = output.indexOf(0x0a, position);
		const lengthEnd = pathEnd === -1 ? -1 : output.indexOf(0x0a, pathEnd + 1);
		if (lengthEnd === -1) break;
		const path = output.toString("utf8", position, pathEnd);
		const length = Number(output.toString("latin1", pathEnd + 1, lengthEnd));
		const text = output.toString("utf8", lengthEnd + 1, lengthEnd + 1 + length);
		position = lengthEnd + 1 + length;
		if (!path.startsWith("./")) {
			texts.set(path, text);
			continue;
		}
		const relative = path.slice(2);
		texts.set(posix.join(root, relative), text);
		const isExclude = relative === GIT_EXCLUDE || relative.endsWith(`/${GIT_EXCLUDE}`);
		const name = isExclude ? GIT_EXCLUDE : posix.basename(relative);
		const folder = isExclude ? relative.slice(0, -GIT_EXCLUDE.length - 1) : posix.dirname(relative);
		const key = folder === "." ? "" : folder;
		present.set(key, [...(present.get(key) ?? []), name]);
	}
	return { texts, present };
}

/**
 * Streams the root-relative paths of the regular files under `root` on the remote side, in path
 * order, in batches as they arrive (see `sortedListScript`). Stopping the iteration (or `signal`)
 * kills the remote listing; memory holds one chunk, not the list.
 */
export async function* streamSortedFiles(
	transport: RemoteTransport,
	request: { root: string; realRoot?: string },
	signal: AbortSignal,
): AsyncGenerator<string[]> {
	const { root } = request;
	const child = await transport.spawn(sortedListScript, enterFolderArguments(request));
	const kill = () => signalChild(child, "SIGKILL");
	signal.addEventListener("abort", kill, { once: true });
	child.stdin.on("error", () => {});
	child.stdin.end();
	let stderr = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		if (stderr.length < 16 * 1024) stderr += text;
	});
	const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
	let pending = "";
	let listed = false;
	try {
		child.stdout.setEncoding("utf8");
		for await (const chunk of child.stdout as AsyncIterable<string>) {
			listed = true;
			const paths = (pending + chunk).split("\0");
			pending = paths.pop() ?? "";
			const batch = paths.filter((path) => path.startsWith("./")).map((path) => path.slice(2));
			if (batch.length > 0) yield batch;
		}
		// Every whole path ends with a NUL: what is left is a path cut short (the listing stopped).
		const code = await closed;
		if (signal.aborted) throw new AbortError();
		const failure = transport.failure(code, stderr);
		if (failure) throw failure;
		if (code !== 0 && !listed) throw new Error(`Listing ${root} on the remote side failed: ${stderrSummary(stderr)}`);
	} finally {
		signal.removeEventListener("abort", kill);
		if (child.exitCode === null) signalChild(child, "SIGKILL");
	}
}
