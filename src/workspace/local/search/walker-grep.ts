import { open } from "node:fs/promises";
import { join } from "node:path";
import { AbortError } from "../../../engine/index.js";
import { decodeText } from "../../files/legacy-encoding.js";
import { type GrepLine, type GrepRequest, MAX_WALKER_LINE_BYTES } from "../../search/types.js";
import { buildLineMatcher } from "./line-matcher/build-matcher.js";
import { type LineMatcher, stripCr } from "./line-matcher/types.js";
import { Prefetch } from "./prefetch.js";
import { capAtSize, openForScan, type ScanFileHandle } from "./scan-file-handle.js";
import { type WalkSource, walkFiles } from "./walker.js";

const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;
/** How many files are read at once; results still come out in walk order. */
const CONCURRENT_FILES = 8;
/** Read buffers of finished files, reused: a fresh 256 KB buffer per small file is garbage. */
const spareBuffers: Buffer[] = [];

function takeBuffer(): Buffer {
	return spareBuffers.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
}

function giveBuffer(buffer: Buffer): void {
	if (spareBuffers.length < CONCURRENT_FILES * 2) spareBuffers.push(buffer);
}

/** Lines a file searched ahead may hold before it waits for its turn. */
const PREFETCH_LINES = 1000;

/** Where the walker-grep reads: folders and ignore files, and the files it scans. */
export interface GrepSource extends WalkSource {
	/** Opens a file (absolute path) for reading from its start. */
	open(absolutePath: string): Promise<ScanFileHandle>;
}

/**
 * The built-in content search: walks like ripgrep, reads each file in chunks (memory stays flat
 * however large the file), skips binary files (a NUL byte in the first chunk), and yields the
 * matching and context lines in batches, file after file in walk order. `source` is where it
 * reads (default: this machine's disk).
 */
export async function* walkerGrep(
	request: GrepRequest,
	signal: AbortSignal,
	source?: GrepSource,
): AsyncGenerator<GrepLine[]> {
	const regex = buildLineMatcher(request, signal);
	try {
		yield* searchAll(request, regex, signal, source);
	} finally {
		regex.close();
	}
}

async function* searchAll(
	request: GrepRequest,
	regex: LineMatcher,
	signal: AbortSignal,
	source: GrepSource | undefined,
): AsyncGenerator<GrepLine[]> {
	if (request.file !== undefined) {
		// One file: stream it chunk by chunk, so a limit or timeout sees lines as they are found.
		yield* searchFile({
			root: request.openedRoot ?? request.root,
			path: request.file,
			regex,
			context: request.context,
			signal,
			reportBinary: true,
			stream: true,
			source,
		});
		if (signal.aborted) throw new AbortError();
		return;
	}
	const files = walkFiles({
		root: request.openedRoot ?? request.root,
		ignoreRoot: request.root,
		respectIgnoreFiles: request.respectIgnoreFiles,
		include: request.include,
		exclude: request.exclude,
		signal,
		source,
	});
	// A small window of files in flight hides file-open latency; order is kept by draining in turn.
	const inFlight: Prefetch<GrepLine>[] = [];
	const search = (path: string) =>
		new Prefetch(
			searchFile({ root: request.openedRoot ?? request.root, path, regex, context: request.context, signal, source }),
			PREFETCH_LINES,
		);
	try {
		for await (const batch of files) {
			for (const path of batch) {
				inFlight.push(search(path));
				if (inFlight.length >= CONCURRENT_FILES) yield* (inFlight.shift() as Prefetch<GrepLine>).drain();
			}
		}
		while (inFlight.length > 0) yield* (inFlight.shift() as Prefetch<GrepLine>).drain();
		if (signal.aborted) throw new AbortError();
	} finally {
		for (const pending of inFlight) pending.close();
	}
}

interface FileSearch {
	root: string;
	path: string;
	regex: LineMatcher;
	context: number;
	signal: AbortSignal;
	/** Say whether a binary file matches (a file named as the path), instead of skipping it silently. */
	reportBinary?: boolean;
	/** Read it asynchronously: a file named as the path may be a FIFO that another process writes. */
	stream?: boolean;
	/** Where the file is opened. Default: this machine's disk. */
	source?: GrepSource;
}

async function* searchFile(search: FileSearch): AsyncGenerator<GrepLine[]> {
	let handle: ScanFileHandle;
	try {
		const path = join(search.root, search.path);
		if (search.source) handle = await search.source.open(path);
		else if (search.stream) {
			const file = await open(path, "r");
			handle = capAtSize(file, await file.stat().catch(() => ({ isFile: () => false, size: 0 })));
		} else handle = await openForScan(path);
	} catch {
		return; // vanished or unreadable: ripgrep warns and goes on
	}
	try {
		yield* scanFile(handle, search);
	} catch (error) {
		if (search.signal.aborted) throw new AbortError();
		if ((error as NodeJS.ErrnoException).code) return;
		throw error;
	} finally {
		await handle.close();
	}
}

/** Yields the lines found in each chunk read (a file's lines in order, context merged). */
async function* scanFile(handle: ScanFileHandle, search: FileSearch): AsyncGenerator<GrepLine[]> {
	const buffer = takeBuffer();
	try {
		yield* scanChunks(handle, search, buffer);
	} finally {
		giveBuffer(buffer);
	}
}

/** Where a scan of one file is: the lines owed, held for context, and collected so far. */
interface ScanState {
	search: FileSearch;
	results: GrepLine[];
	before: { lineNumber: number; text: string }[];
	afterRemaining: number;
	lastEmitted: number;
	lineNumber: number;
}

/** Reads the file chunk by chunk, scanning its complete lines; yields what each chunk found. */
async function* scanChunks(handle: ScanFileHandle, search: FileSearch, buffer: Buffer): AsyncGenerator<GrepLine[]> {
	const state: ScanState = { search, results: [], before: [], afterRemaining: 0, lastEmitted: 0, lineNumber: 0 };
	// Bytes of an unfinished line, kept as parts so a very long line is copied once, not per chunk.
	let carry: Buffer[] = [];
	let carried = 0;
	// Set while the rest of a line longer than the limit is passed over.
	let skipping = false;
	let first = true;
	for (;;) {
		if (search.signal.aborted) throw new AbortError();
		const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
		if (bytesRead === 0) break;
		let chunk = buffer.subarray(0, bytesRead);
		if (first) {
			first = false;
			if (chunk.indexOf(0) !== -1) {
				// A binary file: skipped in a folder, like ripgrep; named on its own, its matches are
				// only reported, not printed.
				if (search.reportBinary && (await binaryMatches(handle, chunk, search))) {
					yield [{ kind: "binary", path: search.path, lineNumber: 0, text: "" }];
				}
				return;
			}
		}
		if (skipping) {
			const end = chunk.indexOf(NEWLINE);
			if (end === -1) continue;
			skipping = false;
			chunk = chunk.subarray(end + 1);
		}
		const lastNewline = chunk.lastIndexOf(NEWLINE);
		if (lastNewline === -1) {
			carry.push(Buffer.from(chunk));
			carried += chunk.length;
			if (carried > MAX_WALKER_LINE_BYTES) {
				passOverLongLine(state);
				carry = [];
				carried = 0;
				skipping = true;
			}
			continue;
		}
		let lastInChunk = lastNewline;
		if (carry.length > 0) {
			chunk = Buffer.concat([...carry, chunk]);
			lastInChunk += carried;
			carry = [];
			carried = 0;
		}
		await processText(state, decodeText(chunk, 0, lastInChunk));
		if (lastInChunk + 1 < chunk.length) {
			carry.push(Buffer.from(chunk.subarray(lastInChunk + 1)));
			carried = carry[0]?.length ?? 0;
		}
		if (state.results.length > 0) {
			yield state.results;
			state.results = [];
		}
	}
	if (carry.length > 0 && !skipping) await processText(state, decodeText(Buffer.concat(carry)));
	if (state.results.length > 0) yield state.results;
}

/**
 * A line longer than `MAX_WALKER_LINE_BYTES`: counted, reported as not searched, and dropped
 * from the context held (its text is not kept).
 */
function passOverLongLine(state: ScanState): void {
	state.lineNumber++;
	state.before.length = 0;
	state.afterRemaining = 0;
	state.results.push({ kind: "long-line", path: state.search.path, lineNumber: state.lineNumber, text: "" });
}

/** Scans one line: a match (with the context held before it), a context line owed after one, or held as context. */
function emitLine(state: ScanState, text: string, matchStart: number): void {
	const { context, path } = state.search;
	state.lineNumber++;
	const lineNumber = state.lineNumber;
	if (matchStart !== -1) {
		for (const held of state.before) {
			if (held.lineNumber > state.lastEmitted) state.results.push({ kind: "context", path, ...held });
		}
		state.before.length = 0;
		state.results.push({ kind: "match", path, lineNumber, text, matchStart });
		state.lastEmitted = lineNumber;
		state.afterRemaining = context;
		return;
	}
	if (state.afterRemaining > 0) {
		state.results.push({ kind: "context", path, lineNumber, text });
		state.lastEmitted = lineNumber;
		state.afterRemaining--;
		return;
	}
	if (context > 0) {
		state.before.push({ lineNumber, text });
		if (state.before.length > context) state.before.shift();
	}
}

/** Scans complete lines of text. */
async function processText(state: ScanState, text: string): Promise<void> {
	const { regex, context } = state.search;
	const starts = await regex.firstMatches(text);
	// Fast path: no match anywhere in the chunk and no context owed, so only count lines.
	if (starts === null && state.afterRemaining === 0) {
		const lineCount = countNewlines(text) + 1;
		if (context > 0) {
			const tail = lastLines(text, context);
			const firstNumber = state.lineNumber + lineCount - tail.length + 1;
			for (const [index, line] of tail.entries()) {
				state.before.push({ lineNumber: firstNumber + index, text: stripCr(line) });
			}
			while (state.before.length > context) state.before.shift();
		}
		state.lineNumber += lineCount;
		return;
	}
	for (const [index, line] of text.split("\n").entries()) emitLine(state, stripCr(line), starts?.[index] ?? -1);
}

/** Longest unfinished line kept between chunks when a binary file is tested for a match. */
const BINARY_CARRY_CHARS = 64 * 1024;

/**
 * Tests a binary file for a match, chunk by chunk from `first` (already read) to the end. NUL
 * bytes count as line ends, as in ripgrep, so a match cannot run across one.
 */
async function binaryMatches(handle: ScanFileHandle, first: Buffer, search: FileSearch): Promise<boolean> {
	let carry = "";
	let chunk = first;
	const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
	for (;;) {
		const text = carry + chunk.toString("utf8").replaceAll("\0", "\n");
		if (await search.regex.test(text)) return true;
		carry = text.slice(text.lastIndexOf("\n") + 1).slice(-BINARY_CARRY_CHARS);
		if (search.signal.aborted) throw new AbortError();
		const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
		if (bytesRead === 0) return false;
		chunk = buffer.subarray(0, bytesRead);
	}
}

function countNewlines(text: string): number {
	let count = 0;
	let index = text.indexOf("\n");
	while (index !== -1) {
		count++;
		index = text.indexOf("\n", index + 1);
	}
	return count;
}

/** The last `count` lines of `text` (fewer when it has fewer). */
function lastLines(text: string, count: number): string[] {
	let start = text.length;
	const lines: string[] = [];
	while (lines.length < count) {
		const newline = start === 0 ? -1 : text.lastIndexOf("\n", start - 1);
		lines.unshift(text.slice(newline + 1, start));
		if (newline === -1) break;
		start = newline;
	}
	return lines;
}
