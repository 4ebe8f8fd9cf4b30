import { join } from "node:path";
import type { ToolTarget } from "../../engine/index.js";
import type { FileOperations, SearchOperations, Workspace } from "../../workspace/index.js";
import { compileGlob } from "../../workspace/index.js";
import { runPinnedSearch } from "./pinned-search.js";

/** Files looked at when explaining an empty result: enough for a project, bounded for a huge tree. */
const MAX_CHECKED_FILES = 2000;
/** Bytes read of each file: a NUL byte among them makes both backends skip it as binary. */
const SNIFF_BYTES = 8192;
/** Time spent at most on the explanation. */
const CHECK_TIMEOUT_MS = 5000;

/** What grep could not search among the files it would have searched. */
export interface SkippedFiles {
	/** Binary files (a NUL byte near the start), skipped unsearched as ripgrep does. */
	binary: string[];
	/** Files that could not be opened (permissions, or they vanished). */
	unreadable: string[];
	/** True when only the first files were checked. */
	partial: boolean;
}

async function kindOf(files: FileOperations, path: string): Promise<"text" | "binary" | "unreadable"> {
	let file: Awaited<ReturnType<FileOperations["open"]>>;
	try {
		file = await files.open(path);
	} catch {
		return "unreadable";
	}
	try {
		const buffer = Buffer.alloc(SNIFF_BYTES);
		const count = await file.read({ buffer, offset: 0, length: SNIFF_BYTES, position: 0 });
		return buffer.subarray(0, count).includes(0) ? "binary" : "text";
	} catch {
		return "unreadable";
	} finally {
		await file.close().catch(() => {});
	}
}

/**
 * Lists the files an empty grep would have searched (same ignore rules, include and exclude
 * globs, read-deny filter) and says which of them it skipped as binary or could not read, so
 * "No matches found" does not hide that part of the tree was never searched.
 */
export async function findSkippedFiles(request: {
	workspace: Workspace;
	callTarget: ToolTarget | undefined;
	search: SearchOperations;
	root: string;
	display: string;
	include: string | undefined;
	exclude: string | undefined;
	respectIgnoreFiles: boolean;
	signal: AbortSignal | undefined;
}): Promise<SkippedFiles> {
	const paths: string[] = [];
	let partial = false;
	const excluded = request.exclude ? compileGlob(request.exclude) : undefined;
	await runPinnedSearch({
		workspace: request.workspace,
		callTarget: request.callTarget,
		root: request.root,
		display: request.display,
		start: (opened, signal) =>
			request.search.listFiles(
				{
					root: request.root,
					...opened,
					pattern: request.include ?? "*",
					respectIgnoreFiles: request.respectIgnoreFiles,
				},
				signal,
			),
		pathOf: (path) => path,
		onBatch: (batch) => {
			for (const path of batch) {
				if (excluded?.(path, false)) continue;
				if (paths.length >= MAX_CHECKED_FILES) {
					partial = true;
					return false;
				}
				paths.push(path);
			}
			return true;
		},
		signal: request.signal,
		timeoutMs: CHECK_TIMEOUT_MS,
	});
	const files = request.workspace.filesFor(request.callTarget);
	const skipped: SkippedFiles = { binary: [], unreadable: [], partial };
	for (const path of paths.sort()) {
		const kind = await kindOf(files, join(request.root, path));
		if (kind !== "text") skipped[kind].push(path);
	}
	return skipped;
}

function some(paths: readonly string[]): string {
	const shown = paths.slice(0, 5).join(", ");
	return paths.length > 5 ? `${shown}, …` : shown;
}

/** The sentence added to "No matches found", or undefined when nothing was skipped. */
export function describeSkippedFiles(skipped: SkippedFiles): string | undefined {
	const parts: string[] = [];
	const count = (n: number, kind: string) => `${n} ${kind} ${n === 1 ? "file" : "files"}`;
	if (skipped.binary.length > 0) parts.push(`${count(skipped.binary.length, "binary")} (${some(skipped.binary)})`);
	if (skipped.unreadable.length > 0) {
		parts.push(`${count(skipped.unreadable.length, "unreadable")} (${some(skipped.unreadable)})`);
	}
	if (parts.length === 0) return undefined;
	const among = skipped.partial ? ` among the first ${MAX_CHECKED_FILES} files` : "";
	const next =
		skipped.binary.length > 0
			? " grep does not search binary files: name one as path to learn whether it matches, or use read to see what it is."
			: " Check their permissions (ls -l via bash).";
	return `Skipped${among}: ${parts.join(" and ")}.${next}`;
}
