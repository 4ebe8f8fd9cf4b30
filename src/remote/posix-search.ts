import { AbortError, ToolError } from "../engine/errors.js";
import type { GrepLine, GrepRequest, ListFilesRequest } from "../tools/search/types.js";
import { walkFiles } from "../tools/search/walker.js";
import { matchStartOf, toExtendedRegex } from "./posix-pattern.js";
import type { RemoteTransport } from "./transport.js";
import { stderrSummary } from "./transport.js";
import { type RunScript, snapshotTree } from "./tree-snapshot.js";

/**
 * Searches the files named on stdin (one per line, relative to `$1`) with POSIX grep, 400 at a
 * time, `/dev/null` first so that every line names its file. `-I` (skip binary files, as ripgrep
 * does in a folder) where grep has it. Exit 2 only when grep itself failed (a bad pattern, say).
 */
const grepScript = `
export LC_ALL=C
cd -- "$1" || exit 2
flags=$2; pattern=$3
grep -I -e x /dev/null 2>/dev/null; [ "$?" = 1 ] && flags="$flags -I"
status=0
search() { grep $flags -e "$pattern" -- /dev/null "$@"; [ "$?" -le 1 ] || status=2; }
set --
while IFS= read -r name; do
	set -- "$@" "$name"
	if [ "$#" -ge 400 ]; then search "$@"; set --; fi
done
[ "$#" -gt 0 ] && search "$@"
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

function grepFlags(request: GrepRequest): string {
	const flags = ["-n", request.literal ? "-F" : "-E"];
	if (!request.caseSensitive) flags.push("-i");
	if (request.context > 0) flags.push(`-C${request.context}`);
	return flags.join(" ");
}

/** Runs the remote grep over `names` and yields its lines in batches, as they come. */
async function* streamGrep(options: {
	transport: RemoteTransport;
	request: GrepRequest;
	names: string[];
	signal: AbortSignal;
}): AsyncGenerator<GrepLine[]> {
	const { transport, request, names, signal } = options;
	const pattern = request.literal ? request.pattern : toExtendedRegex(request.pattern);
	const child = await transport.spawn(grepScript, [request.root, grepFlags(request), pattern]);
	const kill = () => child.kill("SIGKILL");
	signal.addEventListener("abort", kill, { once: true });
	let stderr = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		if (stderr.length < 16 * 1024) stderr += text;
	});
	child.stdin.on("error", () => {});
	child.stdin.end(names.map((name) => `${name}\n`).join(""));
	const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
	const known = new Set(names);
	let pending = "";
	try {
		child.stdout.setEncoding("utf8");
		for await (const chunk of child.stdout as AsyncIterable<string>) {
			const lines = (pending + chunk).split("\n");
			pending = lines.pop() ?? "";
			const batch: GrepLine[] = [];
			for (const line of lines) {
				const parsed = parseLine(line, known);
				// grep without -I prints lines of binary files: ripgrep would skip such a file.
				if (!parsed || parsed.text.includes("\0")) continue;
				if (parsed.kind === "match") parsed.matchStart = matchStartOf(parsed.text, request);
				batch.push(parsed);
			}
			if (batch.length > 0) yield batch;
		}
		const code = await closed;
		if (signal.aborted) throw new AbortError();
		const failure = transport.failure(code, stderr);
		if (failure) throw failure;
		if (code === 2 && stderr.trim()) {
			throw new ToolError(`grep on ${transport.label} rejected the search: ${stderrSummary(stderr)}. Fix the pattern.`);
		}
	} finally {
		signal.removeEventListener("abort", kill);
		if (child.exitCode === null) child.kill("SIGKILL");
	}
}

/** The files a search covers, walked over a snapshot with the same ignore rules as a local walk. */
async function* walkedFiles(
	run: RunScript,
	request: { root: string; respectIgnoreFiles: boolean; include?: string; exclude?: string },
	signal: AbortSignal,
): AsyncGenerator<string[]> {
	const source = await snapshotTree(run, request.root, request.respectIgnoreFiles);
	yield* walkFiles({ ...request, signal, source });
}

/**
 * grep without ripgrep: the files are walked on a snapshot of the remote tree (one `find`), then
 * POSIX grep searches them there in one process; a single named file is searched directly.
 */
export async function* posixGrep(
	transport: RemoteTransport,
	run: RunScript,
	request: GrepRequest,
	signal: AbortSignal,
): AsyncGenerator<GrepLine[]> {
	let names: string[] = [];
	if (request.file !== undefined) names = [request.file];
	else for await (const batch of walkedFiles(run, request, signal)) names.push(...batch);
	if (names.length === 0) return;
	let found = false;
	for await (const batch of streamGrep({ transport, request, names, signal })) {
		found = true;
		yield batch;
	}
	if (!found && request.file !== undefined) {
		// A named binary file that matches gets a notice, as ripgrep gives one.
		const flags = `-q ${grepFlags(request).replace("-n ", "")}`;
		const pattern = request.literal ? request.pattern : toExtendedRegex(request.pattern);
		const matched = await run(`cd -- "$1" && grep $2 -e "$3" -- "$4"`, [request.root, flags, pattern, request.file]);
		if (matched.exitCode === 0) yield [{ kind: "binary", path: request.file, lineNumber: 0, text: "" }];
	}
}

/** find without ripgrep: the walk over a snapshot of the remote tree, narrowed by the pattern. */
export function posixListFiles(
	run: RunScript,
	request: ListFilesRequest,
	signal: AbortSignal,
): AsyncGenerator<string[]> {
	return walkedFiles(
		run,
		{ root: request.root, respectIgnoreFiles: request.respectIgnoreFiles, include: request.pattern },
		signal,
	);
}
