import { randomBytes } from "node:crypto";
import type { DirectoryEntry, FileInfo, FileOperations, ProbedFile, ReadableFile } from "../../files/contract.js";

type FileKind = FileInfo["kind"];

import { type RemoteRunResult, runRemote } from "../transport/run-remote.js";
import type { ScriptChannel } from "../transport/script-channel.js";
import type { RemoteTransport } from "../transport/transport.js";
import { fileScript } from "./file-script.js";
import { MetadataCache } from "./metadata-cache.js";

/**
 * Files up to this size are hashed by the `describe` that stats them: a write's checks ask for the
 * hash right after the stat (stale-write, checkpoints), and a second round trip costs more than
 * hashing a small file.
 */
const DESCRIBE_HASH_MAX_BYTES = 1024 * 1024;

/** Smallest read fetched from the remote side (see `open`). */
const PREFETCH_BYTES = 64 * 1024;

/** The exit code `fileScript` uses for a failure it names with an errno code. */
const NAMED_FAILURE = 97;

/** A file operation that failed on the remote side, with the POSIX `code` the tools expect. */
function remoteFileError(operation: string, path: string, result: RemoteRunResult): Error {
	const named = /TOOLBELT_ERRNO (\w+) ?(.*)/.exec(result.stderr);
	if (result.exitCode === NAMED_FAILURE && named) {
		const code = named[1] as string;
		return Object.assign(new Error(`${code}: ${operation} '${path}'${named[2] ? ` (${named[2]})` : ""}`), { code });
	}
	if (result.exitCode === 127 || /sh: .*not found/.test(result.stderr)) {
		return Object.assign(
			new Error(
				`The remote side lacks a command toolbelt needs (${result.stderr.trim()}). It needs POSIX sh and coreutils.`,
			),
			{ code: "ENOSYS" },
		);
	}
	return Object.assign(
		new Error(`${operation} '${path}' failed on the remote side (exit ${result.exitCode}): ${result.stderr.trim()}`),
		{ code: "EIO" },
	);
}

/** The file kinds as GNU and busybox `stat %F` name them. */
const kindOfType: Record<string, FileKind> = {
	"regular file": "file",
	"regular empty file": "file",
	directory: "directory",
	"symbolic link": "symlink",
};

function parseInfo(text: string): FileInfo {
	const [size, mode, mtime, type = "", links] = text.trim().split("|");
	return {
		kind: kindOfType[type] ?? "other",
		size: Number(size),
		mode: Number.parseInt(mode ?? "0", 8),
		mtimeMs: Number(mtime) * 1000,
		// A file with more than one name is written in place, as locally (a rename would part them).
		...(links ? { links: Number(links) } : {}),
	};
}

function parseEntries(text: string): DirectoryEntry[] {
	const entries: DirectoryEntry[] = [];
	for (const line of text.split("\0")) {
		const slash = line.indexOf("/");
		if (slash === -1) continue;
		entries.push({ kind: line.slice(0, slash) as FileKind, name: line.slice(slash + 1) });
	}
	return entries;
}

const kindOfProbe: Record<string, ProbedFile["kind"]> = {
	l: "symlink",
	d: "directory",
	f: "file",
	o: "other",
	m: "missing",
};

/** Splits the output of the `probe` operation: a record per path, each `\nMARK KIND\n` and the content. */
function parseProbe(output: Buffer, mark: string, count: number): ProbedFile[] {
	const separator = Buffer.from(`\n${mark} `, "latin1");
	const found: ProbedFile[] = [];
	let at = output.indexOf(separator);
	while (at !== -1 && found.length < count) {
		const start = at + separator.length;
		const next = output.indexOf(separator, start);
		const record = output.subarray(start, next === -1 ? output.length : next);
		const kind = kindOfProbe[record.toString("latin1", 0, 1)] ?? "other";
		// Content follows for a readable file (a link's, when it leads to one); an unreadable file
		// reads as empty, which git config treats alike.
		const content = kind === "file" || record.length > 2 ? Buffer.from(record.subarray(2)) : undefined;
		found.push(content === undefined ? { kind } : { kind, content });
		at = next;
	}
	if (found.length !== count) {
		throw Object.assign(new Error(`probe answered ${found.length} of ${count} paths`), { code: "EIO" });
	}
	return found;
}

/** One remote file operation: its name, the path, its arguments and stdin; resolves to its stdout. */
type RemoteCall = (operation: string, path: string, args: string[], stdin?: Uint8Array) => Promise<Buffer>;

/**
 * Opens a remote file for paged reads. No round trip to open: the first read reports a missing or
 * unreadable file. Each read fetches at least PREFETCH_BYTES, so the sniff read and the first page
 * share one round trip.
 */
async function openRemoteFile(call: RemoteCall, path: string): Promise<ReadableFile & { skipLines: SkipLines }> {
	let block: { position: number; bytes: Buffer } | undefined;
	return {
		read: async ({ buffer, offset, length, position }) => {
			const cached = block;
			if (!cached || position < cached.position || position + length > cached.position + cached.bytes.length) {
				const fetched = await call("read", path, [String(position), String(Math.max(length, PREFETCH_BYTES))]);
				block = { position, bytes: fetched };
			}
			const current = block as { position: number; bytes: Buffer };
			const start = position - current.position;
			const count = Math.max(0, Math.min(length, current.bytes.length - start));
			current.bytes.copy(buffer, offset, start, start + count);
			return count;
		},
		// One round trip skips the lines and brings the bytes after them, which the page reads next.
		skipLines: async (position, lines, end) => {
			const args = [String(position), String(lines), String(PREFETCH_BYTES)];
			const output = await call("skiplines", path, end === undefined ? args : [...args, String(end)]);
			const newline = output.indexOf(0x0a);
			const [newlines, bytes, partial] = output.toString("latin1", 0, newline).trim().split(/\s+/);
			const skippedTo = position + Number(bytes ?? 0);
			block = { position: skippedTo, bytes: output.subarray(newline + 1) };
			return { position: skippedTo, lines: Number(newlines ?? 0), partialLine: partial === "yes" };
		},
		close: async () => {},
	};
}

/** Remote `FileOperations` with a line skipper for the read pager and a remote hash. */
export interface RemoteFileOperations extends FileOperations {
	/** sha256 (hex) of a file's content, computed on the remote side. */
	hash(path: string): Promise<string>;
	/** Drops metadata fetched ahead (a shell command may have changed anything). */
	forget(): void;
}

/**
 * `FileOperations` over a remote transport: every call is one remote `sh` script (see
 * `fileScript`). Reads slice on the remote side, `replaceFile` writes a temp file next to the
 * target, checks that every byte arrived, and renames it (old or new content, never a part),
 * hashes are computed there. `confine(roots)` checks real paths inside the same remote command.
 * With a `channel`, the scripts run over its one long-lived remote `sh` instead of one process each.
 */
export function createRemoteFileOperations(
	transport: RemoteTransport,
	roots: readonly string[] = [],
	channel?: ScriptChannel,
	cache: MetadataCache = new MetadataCache(),
): RemoteFileOperations {
	const rootsArgument = roots.join("\n");
	async function call(operation: string, path: string, args: string[], stdin?: Uint8Array): Promise<Buffer> {
		const request = [operation, rootsArgument, path, ...args];
		// On the channel the loop has the functions of fileScript defined already.
		const result = channel
			? await channel.run('file_op "$@"', request, { stdin })
			: await runRemote(transport, fileScript, request, { stdin });
		if (result.exitCode !== 0) throw remoteFileError(operation, path, result);
		return result.stdout;
	}
	const text = async (operation: string, path: string, args: string[] = []) =>
		(await call(operation, path, args)).toString("utf8");

	const open = (path: string) => openRemoteFile(call, path);

	// On the channel a stat brings the lstat and real path along (one round trip instead of three).
	const stat = async (path: string): Promise<FileInfo> => {
		const known = cache.recall(path, "stat");
		if (known) return known;
		if (!channel || path.includes("\n")) return parseInfo(await text("stat", path));
		const [followed, own, real, hash] = (await text("describe", path, [String(DESCRIBE_HASH_MAX_BYTES)])).split("\n");
		const answers = {
			stat: followed && !followed.startsWith("E") ? parseInfo(followed) : undefined,
			lstat: own && own !== "E" ? parseInfo(own) : undefined,
			realpath: real && real !== "E" ? real : undefined,
			hash: hash && /^[0-9a-f]{64}$/.test(hash) ? { hex: hash, roots: rootsArgument } : undefined,
		};
		cache.remember(path, answers);
		if (answers.stat) return answers.stat;
		// A failed stat names its cause (E ENOENT) as the stat operation's error does; else it is asked again on its own.
		const code = /^E ([A-Z]+)$/.exec(followed ?? "")?.[1];
		if (code) throw Object.assign(new Error(`${code}: stat '${path}'`), { code });
		return parseInfo(await text("stat", path));
	};
	const changing = async <TResult>(work: Promise<TResult>): Promise<TResult> => {
		cache.clear();
		try {
			return await work;
		} finally {
			cache.clear();
		}
	};
	return {
		stat,
		lstat: async (path) => cache.recall(path, "lstat") ?? parseInfo(await text("lstat", path)),
		realpath: async (path) => cache.recall(path, "realpath") ?? text("realpath", path),
		readlink: async (path) => (await text("readlink", path)).replace(/\n$/, ""),
		readdir: async (path) => parseEntries(await text("readdir", path)),
		open,
		readFile: (path) => call("readfile", path, []),
		writeFile: async (path, data, options = {}) => {
			const mode = (options.mode ?? 0o666).toString(8);
			await changing(call("writefile", path, [mode, options.exclusive ? "exclusive" : "", String(data.length)], data));
		},
		replaceFile: async (path, data, options) => {
			const mode = (options.mode ?? 0o666).toString(8);
			await changing(call("replacefile", path, [mode, options.exactMode ? "exact" : "", String(data.length)], data));
		},
		mkdir: async (path, options) => {
			await changing(call("mkdir", path, [options?.recursive ? "recursive" : ""]));
		},
		rename: async (from, to) => {
			await changing(call("rename", from, [to]));
		},
		unlink: async (path) => {
			await changing(call("unlink", path, []));
		},
		rmdir: async (path) => {
			await changing(call("rmdir", path, []));
		},
		chmod: async (path, mode) => {
			await changing(call("chmod", path, [mode.toString(8)]));
		},
		symlink: async (target, path) => {
			await changing(call("symlink", path, [target]));
		},
		hash: async (path) => cache.recallHash(path, rootsArgument) ?? (await text("sha256", path)).trim(),
		probeFiles: async (paths, maxBytes) => {
			if (paths.length === 0) return [];
			const mark = randomBytes(12).toString("hex");
			const output = await call("probe", mark, [String(maxBytes), ...paths]);
			return parseProbe(output, mark, paths.length);
		},
		forget: () => cache.clear(),
		confine: (confineTo) => createRemoteFileOperations(transport, confineTo, channel, cache),
	};
}

/**
 * Skips `lines` newlines from byte `position` on the remote side; resolves to the byte after the
 * last skipped newline, how many were found (fewer at the end of the file), and whether the file
 * ended in a line without a newline then. Nothing at or past `end` is looked at (see `ReadableFile.skipLines`).
 */
export type SkipLines = (
	position: number,
	lines: number,
	end?: number,
) => Promise<{ position: number; lines: number; partialLine: boolean }>;
