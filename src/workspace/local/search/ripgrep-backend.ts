import { availableParallelism } from "node:os";
import { join } from "node:path";
import { decodeText } from "../../files/legacy-encoding.js";
import { compileGlob, nameGlobOf } from "../../search/glob-filter.js";
import { hasIgnoreSourcesAbove } from "../../search/parent-ignore-files.js";
import type { GrepLine, GrepRequest, ListFilesRequest } from "../../search/types.js";
import { TextLineSplitter } from "./line-splitter.js";
import { DEFAULT_MAX_OUTPUT_LINE_BYTES, GrepOutputSplitter } from "./long-lines/grep-output-splitter.js";
import { OmittedLines } from "./long-lines/omitted-lines.js";
import { ORDERED_FIRST_READS, orderedFirstGrep } from "./path-order/ordered-first-grep.js";
import {
	type PathOrderedGrepOptions,
	pathOrderedGrep,
	type StartGrep,
	startStoppable,
} from "./path-order/path-ordered-grep.js";
import { readCallsCountable } from "./read-calls.js";
import type { RipgrepPair } from "./ripgrep-pair.js";
import { type RipgrepLauncher, startRipgrep, startRipgrepPair } from "./ripgrep-process.js";
import type { LaunchedRipgrep } from "./shell-started-ripgrep.js";

/**
 * Flags every search shares: hidden files are searched, `.git/` never is, ignore files apply
 * outside a git repository too (nested ones to their own folder), symlinks are not followed.
 */
function commonArgs(respectIgnoreFiles: boolean, root: string): string[] {
	const args = ["--hidden", "--glob", "!.git", "--no-config", "--color", "never"];
	if (!respectIgnoreFiles) args.push("--no-ignore");
	else {
		args.push("--no-require-git");
		if (!hasIgnoreSourcesAbove(root)) args.push("--no-ignore-parent");
	}
	return args;
}

/**
 * Narrowing by glob. ripgrep's `--glob` would *override* ignore files for what it names (`*`
 * would list node_modules), so an include glob becomes a file type on its name part, which
 * ripgrep applies after the ignore files; the full glob is checked on the output (`pathFilter`).
 * An exclude can only drop more, so it stays a negated `--glob`.
 */
function globArgs(include: string | undefined, exclude: string | undefined): string[] {
	const args: string[] = [];
	const name = include ? nameGlobOf(include) : undefined;
	if (name) args.push("--type-add", `toolbeltinclude:${name}`, "--type", "toolbeltinclude");
	// "./dist" means the top-level dist, which a gitignore-style glob spells "/dist".
	if (exclude) args.push("--glob", `!${exclude.trim().replace(/^(\.\/)+/, "/")}`);
	return args;
}

/** Tests output paths against the include glob; remembers the last answer (lines come file by file). */
function pathFilter(include: string | undefined): (path: string) => boolean {
	if (!include) return () => true;
	const matches = compileGlob(include);
	let lastPath: string | undefined;
	let lastAnswer = false;
	return (path) => {
		if (path !== lastPath) {
			lastPath = path;
			lastAnswer = matches(path, false);
		}
		return lastAnswer;
	};
}

/** Compiled size and lazy-DFA cache a pattern may take in ripgrep. */
const REGEX_SIZE_LIMIT = "10M";

/**
 * ripgrep's arguments for a content search, in its compact text mode (`path\0line:column:text`).
 * `common`: the flags every search shares, when the caller computed them for this request already
 * (they look for ignore files above the root: a search that starts two ripgreps looks once).
 * `omitLongLines`: a line of that many bytes or more comes as ripgrep's marker with the line's
 * offset in the file (`--max-columns`, `--byte-offset`; see `OmittedLines`), not whole.
 */
export function grepArgs(
	request: GrepRequest,
	common = commonArgs(request.respectIgnoreFiles, request.root),
	omitLongLines?: number,
): string[] {
	const args = [
		...common,
		"--null",
		"--line-number",
		"--column",
		"--with-filename",
		"--no-heading",
		"--no-context-separator",
		// `$` matches before \r\n too, as in the walker, which strips \r from every line.
		"--crlf",
		request.caseSensitive ? "--case-sensitive" : "--ignore-case",
		// A pattern whose compiled form is huge (`a{1000}{1000}`) is refused at once, with
		// ripgrep's reason, instead of running until the timeout: the regex crate's own default
		// limits (ripgrep raises them), ample for patterns people write (`\w{100}` fits).
		"--regex-size-limit",
		REGEX_SIZE_LIMIT,
		"--dfa-size-limit",
		REGEX_SIZE_LIMIT,
	];
	// ripgrep applies no glob to a file named on its command line; neither does the walker.
	if (request.file === undefined) args.push(...globArgs(request.include, request.exclude));
	// Searching a folder, ripgrep writes each file's lines as soon as the file is done. In one
	// (large) file it would hold them until its buffer fills: ask for every line at once, so the
	// limit can stop it early and a timeout keeps what was found.
	else args.push("--line-buffered");
	if (omitLongLines !== undefined) args.push("--byte-offset", "--max-columns", String(omitLongLines));
	// Look-around and back-references are common in patterns models write; `auto` keeps the fast
	// engine and switches to PCRE2 only for a pattern that needs it (the walker's JavaScript
	// regex has both, so the backends agree).
	if (request.literal) args.push("--fixed-strings");
	else args.push("--engine", "auto");
	if (request.context > 0) args.push("--context", String(request.context));
	// One thread, files in path order: the caller can stop at its limit with the first matches.
	if (request.pathOrder && request.file === undefined) args.push("--sort", "path");
	// --regexp keeps a pattern that starts with "-" from being read as a flag; "--" ends flags for the path.
	args.push("--regexp", request.pattern, "--");
	if (request.file !== undefined) args.push(request.file);
	return args;
}

/**
 * Walker threads for a listing. Listing waits on directory reads more than it computes, so on a
 * machine with few cores more threads than cores keep more reads in flight: 4 instead of 2 lists
 * a 20,000-file tree about 10 % faster. (A content search is bound by the CPU: it keeps the default.)
 */
const listingThreads = availableParallelism() < 4 ? ["--threads", "4"] : [];

/** ripgrep's arguments for listing files; the pattern narrows like an include glob. */
export function listFilesArgs(request: ListFilesRequest): string[] {
	return [
		"--files",
		// Names end with NUL, not a newline: a name may hold a newline.
		"--null",
		// One thread, paths in path order: the caller can stop at its limit with the first paths.
		...(request.pathOrder ? ["--sort", "path"] : listingThreads),
		...commonArgs(request.respectIgnoreFiles, request.root),
		...globArgs(request.pattern, undefined),
	];
}

/**
 * Parses one line of `grepArgs` output. Match lines are `path\0line:column:text`, context lines
 * `path\0line-text`; the column is a 1-based byte offset of the first match. `byteOffsets`: run
 * with `--byte-offset`, which puts the line's offset in the file after the numbers (`line:column:offset:`).
 */
export function parseGrepLine(line: Buffer, byteOffsets = false): GrepLine | undefined {
	const pathEnd = line.indexOf(0);
	if (pathEnd === -1) return parseBinaryNotice(line);
	let position = pathEnd + 1;
	let lineNumber = 0;
	let byte = line[position];
	while (byte !== undefined && byte >= 0x30 && byte <= 0x39) {
		lineNumber = lineNumber * 10 + (byte - 0x30);
		byte = line[++position];
	}
	const kind = byte === 0x3a ? "match" : "context";
	position++;
	let column = 0;
	if (kind === "match") {
		byte = line[position];
		while (byte !== undefined && byte >= 0x30 && byte <= 0x39) {
			column = column * 10 + (byte - 0x30);
			byte = line[++position];
		}
		position++;
	}
	if (byteOffsets) {
		while ((line[position] ?? 0) >= 0x30 && (line[position] ?? 0) <= 0x39) position++;
		position++;
	}
	let end = line.length;
	if (line[end - 1] === 0x0d) end--;
	const textBytes = line.subarray(position, end);
	const text = decodeText(textBytes);
	const path = posixPath(line.toString("utf8", 0, pathEnd));
	const result: GrepLine = { kind, path, lineNumber, text };
	if (kind === "match" && column > 0) {
		// Byte column to character offset; cheap when the line is ASCII.
		result.matchStart =
			text.length === textBytes.length ? column - 1 : textBytes.toString("utf8", 0, column - 1).length;
	}
	return result;
}

/**
 * Puts back together a grep record whose file name holds a newline: ripgrep ends each record
 * with `\n`, and a line's text never holds one, so the only `\n` inside a record is in its
 * path (before the NUL). A piece without the NUL that is no binary notice is such a path's
 * start: it is held and joined to the next piece.
 */
export class GrepRecords {
	private held: Buffer | undefined;

	/** @param byteOffsets ripgrep was run with `--byte-offset` (see `parseGrepLine`). */
	constructor(private readonly byteOffsets = false) {}

	/** The record `line` completes, or undefined while a path is still incomplete. */
	parse(line: Buffer): GrepLine | undefined {
		const whole = this.held ? Buffer.concat([this.held, Buffer.from([0x0a]), line]) : line;
		this.held = undefined;
		const parsed = parseGrepLine(whole, this.byteOffsets);
		if (parsed || whole.includes(0)) return parsed;
		this.held = Buffer.from(whole);
		return undefined;
	}
}

const BINARY_NOTICE = ": binary file matches (";

/**
 * A file named on the command line is searched even when it is binary; ripgrep then prints
 * `path: binary file matches (found "\0" byte around offset N)` instead of the lines.
 */
function parseBinaryNotice(line: Buffer): GrepLine | undefined {
	const text = line.toString("utf8");
	const noticeStart = text.lastIndexOf(BINARY_NOTICE);
	if (noticeStart <= 0) return undefined;
	return { kind: "binary", path: posixPath(text.slice(0, noticeStart)), lineNumber: 0, text: "" };
}

/**
 * Starts one ripgrep for `request` (locally, or where `launch` starts it), in path order or not;
 * rejects when ripgrep cannot start. `paired`: a local ordered ripgrep started first comes with
 * its every-thread partner, which a later start takes without a fork of this process (see `RipgrepPair`).
 */
export function ripgrepGrepStarter(
	rgPath: string,
	request: GrepRequest,
	launch?: RipgrepLauncher,
	paired = false,
): StartGrep {
	const wanted = pathFilter(request.file === undefined ? request.include : undefined);
	const cwd = request.openedRoot ?? request.root;
	// A file named as the path, on this machine: its long lines are read back from it, not piped whole.
	const omitted =
		request.file !== undefined && launch === undefined
			? OmittedLines.forFile(join(cwd, request.file), DEFAULT_MAX_OUTPUT_LINE_BYTES)
			: undefined;
	const byteOffsets = omitted !== undefined;
	let common: string[] | undefined;
	let pair: RipgrepPair | undefined;
	let pairTried = !paired || launch !== undefined;
	return async (pathOrder, runSignal, alongside) => {
		common ??= commonArgs(request.respectIgnoreFiles, request.root);
		let started: LaunchedRipgrep | undefined;
		if (pathOrder && !pairTried) {
			pairTried = true;
			const everyThreadArgs = grepArgs({ ...request, pathOrder: false }, common);
			pair = startRipgrepPair({ rgPath, everyThreadArgs, cwd });
			started = pair?.ordered;
		} else if (!pathOrder) started = pair?.startEveryThread();
		const args = grepArgs({ ...request, pathOrder }, common, omitted && DEFAULT_MAX_OUTPUT_LINE_BYTES);
		const ripgrep = await startRipgrep(
			{ rgPath, args, cwd, signal: runSignal, launch, alongside, started },
			new GrepOutputSplitter(DEFAULT_MAX_OUTPUT_LINE_BYTES, byteOffsets),
		);
		const records = new GrepRecords(byteOffsets);
		const lines = mapBatches(ripgrep.lines, async (batch) => {
			const parsed: GrepLine[] = [];
			for (const line of batch) {
				const restored = omitted && OmittedLines.mayBeMarker(line) ? await omitted.restore(line, runSignal) : undefined;
				const grepLine = records.parse(restored ?? line);
				if (grepLine && wanted(grepLine.path)) parsed.push(grepLine);
			}
			return parsed;
		});
		return Object.assign(lines, { readCalls: ripgrep.readCalls });
	};
}

/**
 * Runs a content search with ripgrep (locally, or where `launch` starts it); rejects when ripgrep
 * cannot start. A folder search in path order gets its lines from `orderedFirstGrep` where the
 * ordered ripgrep's read calls can be counted (a local one on Linux: one process start for a
 * frequent pattern), else from `pathOrderedGrep` (`ordering`).
 */
export async function ripgrepGrep(
	rgPath: string,
	request: GrepRequest,
	signal: AbortSignal,
	launch?: RipgrepLauncher,
	ordering: PathOrderedGrepOptions = {},
) {
	const orderedFirstReads =
		ordering.orderedFirstReads ??
		(launch === undefined && !ordering.everyThreadFirst && readCallsCountable() ? ORDERED_FIRST_READS : 0);
	const folderInOrder = request.pathOrder === true && request.file === undefined;
	const start = ripgrepGrepStarter(rgPath, request, launch, folderInOrder && orderedFirstReads > 0);
	if (!folderInOrder) return start(false, signal);
	// Started here, so that a ripgrep that cannot start rejects now (and the walker answers).
	if (orderedFirstReads > 0) {
		const ordered = await startStoppable(start, true, signal);
		return orderedFirstGrep(ordered, start, signal, { ...ordering, orderedFirstReads });
	}
	const everyThread = await startStoppable(start, false, signal);
	return pathOrderedGrep(everyThread, start, signal, ordering);
}

/** Lists files with ripgrep; rejects when ripgrep cannot start. */
export async function ripgrepListFiles(
	rgPath: string,
	request: ListFilesRequest,
	signal: AbortSignal,
	launch?: RipgrepLauncher,
) {
	const ripgrep = await startRipgrep(
		{ rgPath, args: listFilesArgs(request), cwd: request.openedRoot ?? request.root, signal, launch },
		new TextLineSplitter(0),
	);
	// A name glob is fully applied by ripgrep's file type; only a path glob needs a second look.
	const wanted = nameOnly(request.pattern) ? undefined : pathFilter(request.pattern);
	return mapBatches(ripgrep.lines, (lines) => {
		const paths: string[] = [];
		for (const line of lines) {
			const path = posixPath(line);
			if (!wanted || wanted(path)) paths.push(path);
		}
		return paths;
	});
}

const windows = process.platform === "win32";

/** ripgrep's path as the tools print it: no `./` prefix, `/` between folders on every platform. */
function posixPath(path: string): string {
	const posix = windows ? path.replaceAll("\\", "/") : path;
	return posix.startsWith("./") ? posix.slice(2) : posix;
}

/** True for a glob that only constrains the file name: `*.ts`, `**\/*.ts`. */
function nameOnly(glob: string): boolean {
	const pattern = glob.trim().replace(/^(\*\*\/)+/, "");
	return !pattern.includes("/") && !pattern.includes("**") && nameGlobOf(glob) !== undefined;
}

async function* mapBatches<TLine, TItem>(
	source: AsyncIterable<TLine[]>,
	map: (lines: TLine[]) => TItem[] | Promise<TItem[]>,
): AsyncGenerator<TItem[]> {
	for await (const lines of source) {
		const items = await map(lines);
		if (items.length > 0) yield items;
	}
}
