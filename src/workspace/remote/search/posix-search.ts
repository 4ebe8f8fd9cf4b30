import { AbortError, stoppableSignal, ToolError } from "../../../engine/index.js";
import { signalChild } from "../../local/index.js";
import type { GrepLine, GrepRequest, ListFilesRequest } from "../../search/types.js";
import { enterFolderArguments, enterFolderScript } from "../files/enter-folder.js";
import type { RemoteTransport } from "../transport/transport.js";
import { stderrSummary } from "../transport/transport.js";
import { BATCH_DONE_PREFIX, feedNames, ONE_FILE_START, PendingNames } from "./grep-feed.js";
import { matchStartOf, toExtendedRegex } from "./posix-pattern.js";
import type { RunScript } from "./sorted-listing.js";
import { walkRemoteFiles } from "./streamed-walk.js";

/**
 * Longest output line that crosses the wire whole, as locally (`DEFAULT_MAX_OUTPUT_LINE_BYTES`):
 * `cut` ends each of grep's lines there on the remote side (GNU cut streams, so a 1 GB line
 * is never held there by cut either), one byte over, so that a cut line can be told here.
 */
export const REMOTE_GREP_LINE_BYTES = 1024 * 1024;
/** Bytes kept on each side of the match of a cut line: what grep shows of a line fits. */
const WINDOW = 200;

/**
 * Defines `search NAME…`: POSIX grep over one batch of names, `/dev/null` first so that every line
 * names its file, then a line `BATCH_DONE_PREFIX` N (N names done). A name sent as `/` + escapes
 * (it holds a newline: see `feedLine`) is read back with `printf %b` and searched by itself
 * between `ONE_FILE_START` i (its place in the batch) and `ONE_FILE_END`, its lines without a
 * name, so no name is ever split over lines. Fails when grep itself failed (status over 1).
 * `cutgrep` is grep with each output line cut at `$cap` bytes, keeping grep's exit status
 * (a pipe would give cut's): the status leaves through fd 3, the lines through fd 4 (stdout).
 */
const searchFunction = String.raw`search() {
	exec 4>&1
	one=
	for f; do case $f in /*) one=1; break;; esac; done
	if [ -z "$one" ]; then
		s=$(cutgrep $flags -e "$pattern" -- /dev/null "$@")
	else
		s=0; i=0
		for f; do
			case $f in
			/*) f=$(printf "%bx" "%{f#/}"); f=%{f%x}
				printf "\000F %s\n" "$i"; t=$(cutgrep $flags -h -e "$pattern" -- "$f"); printf "\000E\n";;
			*) t=$(cutgrep $flags -e "$pattern" -- /dev/null "$f");;
			esac
			[ "$t" -le 1 ] || s=$t; i=$((i + 1))
		done
	fi
	printf "\000B %s\n" "$#"
	[ "$s" -le 1 ]
}
cutgrep() { { { grep "$@"; echo "$?" >&3; } | cut -b "1-$cap" >&4; } 3>&1; }`.replaceAll("%{", "${");

/**
 * Searches the files named on stdin (one a line, see `feedLine`; relative to `$1`, entered by
 * `enterFolderScript`; the flags and pattern follow) with `search` (see `searchFunction`). Where
 * `xargs -0` exists (GNU, busybox, POSIX.1-2024) it makes the batches of 1,000 names; else a shell
 * loop makes them of 400 (its `set --` grows with the batch). `-I` (skip binary files, as ripgrep
 * does in a folder) where grep has it. Exit 2 only when grep itself failed (a bad pattern, say).
 * Exported for its tests.
 */
export const posixGrepScript = String.raw`
export LC_ALL=C
${enterFolderScript}
flags=$1; pattern=$2; cap=$3
grep -I -e x /dev/null 2>/dev/null; [ "$?" = 1 ] && flags="$flags -I"
define='${searchFunction}'
eval "$define"
if printf 'x\000' | xargs -0 -n 1 true 2>/dev/null; then
	export flags pattern cap
	tr '\n' '\000' | xargs -0 -n 1000 sh -c "$define"'
search "$@"' sh
	[ "$?" = 0 ] || exit 2
	exit 0
fi
status=0
set --
while IFS= read -r name; do
	set -- "$@" "$name"
	if [ "$#" -ge 400 ]; then search "$@" || status=2; set --; fi
done
if [ "$#" -gt 0 ]; then search "$@" || status=2; fi
exit "$status"
`;

/** Splits `name:12:text` (a match) or `name-12-text` (context) where `name` is one of the files asked for. */
function parseLine(line: string, names: ReadonlySet<string>): GrepLine | undefined {
	for (let index = line.search(/[:-]/); index !== -1; ) {
		const name = line.slice(0, index);
		const rest = /^(\d+)([:-])/.exec(line.slice(index + 1));
		if (rest && rest[2] === line[index] && names.has(name)) {
			const kind = rest[2] === ":" ? "match" : "context";
			let text = line.slice(index + 1 + (rest[0] as string).length);
			if (text.endsWith("\r")) text = text.slice(0, -1);
			return { kind, path: name, lineNumber: Number(rest[1]), text };
		}
		const next = line.slice(index + 1).search(/[:-]/);
		index = next === -1 ? -1 : index + 1 + next;
	}
	return undefined;
}

/** Splits `12:text` (a match) or `12-text` (context) of the file `name`, searched by itself. */
function parseNamelessLine(line: string, name: string): GrepLine | undefined {
	const head = /^(\d+)([:-])/.exec(line);
	if (!head) return undefined;
	let text = line.slice(head[0].length);
	if (text.endsWith("\r")) text = text.slice(0, -1);
	return { kind: head[2] === ":" ? "match" : "context", path: name, lineNumber: Number(head[1]), text };
}

function grepFlags(request: GrepRequest): string {
	const flags = ["-n", request.literal ? "-F" : "-E"];
	if (!request.caseSensitive) flags.push("-i");
	if (request.context > 0) flags.push(`-C${request.context}`);
	return flags.join(" ");
}

/**
 * A line the remote side cut at `REMOTE_GREP_LINE_BYTES`: a window of its text around the match
 * (or its start), marked as the local search marks a line it did not hold whole.
 */
function cutLine(line: GrepLine): GrepLine {
	const focus = line.matchStart ?? 0;
	const start = Math.max(0, focus - WINDOW);
	const prefix = start > 0 ? `[… ${start} characters of this line left out] ` : "";
	const text = `${prefix}${line.text.slice(start, focus + WINDOW)} [… the rest of this line left out: it is over ${REMOTE_GREP_LINE_BYTES / 1024 / 1024} MiB]`;
	return { ...line, text, ...(line.matchStart !== undefined ? { matchStart: focus - start + prefix.length } : {}) };
}

/** Runs the remote grep over `names` (fed as they come) and yields its lines in batches, as they come. */
async function* streamGrep(options: {
	transport: RemoteTransport;
	request: GrepRequest;
	names: AsyncIterable<string[]> | Iterable<string[]>;
	signal: AbortSignal;
	/** Stops the names' source (the remote listing) once grep is done or given up. */
	stopNames: () => void;
}): AsyncGenerator<GrepLine[]> {
	const { transport, request, signal } = options;
	const pattern = request.literal ? request.pattern : toExtendedRegex(request.pattern);
	const child = await transport.spawn(posixGrepScript, [
		...enterFolderArguments(request),
		grepFlags(request),
		pattern,
		String(REMOTE_GREP_LINE_BYTES + 1),
	]);
	const kill = () => signalChild(child, "SIGKILL");
	signal.addEventListener("abort", kill, { once: true });
	let stderr = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		if (stderr.length < 16 * 1024) stderr += text;
	});
	child.stdin.on("error", () => {});
	const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
	const pending = new PendingNames();
	let finished = false;
	let feedError: unknown;
	const feeding = feedNames(options.names, child, pending, () => finished).catch((error: unknown) => {
		feedError = error;
		kill();
	});
	let rest = "";
	// The file whose lines come without a name (a name holding a newline, searched by itself).
	let oneFile: string | undefined;
	try {
		child.stdout.setEncoding("utf8");
		for await (const chunk of child.stdout as AsyncIterable<string>) {
			const lines = (rest + chunk).split("\n");
			rest = lines.pop() ?? "";
			const batch: GrepLine[] = [];
			for (const line of lines) {
				if (line.startsWith("\0")) {
					if (line.startsWith(BATCH_DONE_PREFIX)) pending.done(Number(line.slice(BATCH_DONE_PREFIX.length)));
					oneFile = line.startsWith(ONE_FILE_START)
						? pending.nameAt(Number(line.slice(ONE_FILE_START.length)))
						: undefined;
					continue;
				}
				const parsed = oneFile === undefined ? parseLine(line, pending.known) : parseNamelessLine(line, oneFile);
				// grep without -I prints lines of binary files: ripgrep would skip such a file.
				if (!parsed || parsed.text.includes("\0")) continue;
				if (parsed.kind === "match") parsed.matchStart = matchStartOf(parsed.text, request);
				batch.push(Buffer.byteLength(line) > REMOTE_GREP_LINE_BYTES ? cutLine(parsed) : parsed);
			}
			if (batch.length > 0) yield batch;
		}
		const code = await closed;
		if (signal.aborted) throw new AbortError();
		await feeding;
		if (feedError !== undefined) throw feedError;
		const failure = transport.failure(code, stderr);
		if (failure) throw failure;
		if (code === 2 && stderr.trim()) {
			throw new ToolError(`grep on ${transport.label} rejected the search: ${stderrSummary(stderr)}. Fix the pattern.`);
		}
	} finally {
		finished = true;
		pending.wake();
		signal.removeEventListener("abort", kill);
		if (child.exitCode === null) signalChild(child, "SIGKILL");
		options.stopNames();
	}
}

/**
 * grep without ripgrep: the files are walked as the remote listing streams in (`walkRemoteFiles`:
 * the local walker's rules, in path order) and fed to one POSIX grep there as they pass; a single
 * named file is searched directly. Memory stays flat in the tree's size; stopping early (a limit
 * reached in path order) stops both remote processes.
 */
export async function* posixGrep(
	transport: RemoteTransport,
	run: RunScript,
	request: GrepRequest,
	signal: AbortSignal,
): AsyncGenerator<GrepLine[]> {
	const walk = stoppableSignal(signal);
	const walking = walk.signal;
	const names: AsyncIterable<string[]> | Iterable<string[]> =
		request.file !== undefined ? [[request.file]] : walkRemoteFiles(transport, run, request, walking);
	let found = false;
	for await (const batch of streamGrep({ transport, request, names, signal, stopNames: walk.stop })) {
		found = true;
		yield batch;
	}
	if (!found && request.file !== undefined) {
		// A named binary file that matches gets a notice, as ripgrep gives one.
		const flags = `-q ${grepFlags(request).replace("-n ", "")}`;
		const pattern = request.literal ? request.pattern : toExtendedRegex(request.pattern);
		const matched = await run(`${enterFolderScript}\ngrep $1 -e "$2" -- "$3"`, [
			...enterFolderArguments(request),
			flags,
			pattern,
			request.file,
		]);
		if (matched.exitCode === 0) yield [{ kind: "binary", path: request.file, lineNumber: 0, text: "" }];
	}
}

/** find without ripgrep: the remote listing streamed through the walker's rules, narrowed by the pattern. */
export function posixListFiles(
	transport: RemoteTransport,
	run: RunScript,
	request: ListFilesRequest,
	signal: AbortSignal,
): AsyncGenerator<string[]> {
	return walkRemoteFiles(
		transport,
		run,
		{
			root: request.root,
			realRoot: request.realRoot,
			respectIgnoreFiles: request.respectIgnoreFiles,
			include: request.pattern,
		},
		signal,
	);
}
