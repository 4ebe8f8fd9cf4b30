import { posix } from "node:path";
import { AbortError } from "../../../engine/index.js";
import { compileGlob, type GlobTest } from "../../search/glob-filter.js";
import { IgnoreRules } from "../../search/ignore-rules.js";
import type { RemoteTransport } from "../transport/transport.js";
import { type RemoteIgnoreFiles, type RunScript, readRemoteIgnoreFiles, streamSortedFiles } from "./sorted-listing.js";

/** What a remote walk lists (as `WalkOptions` of the local walker). */
export interface RemoteWalkRequest {
	/** Absolute path of the remote folder to walk. */
	root: string;
	/** Its real path as the guards checked it, when they confined the call (see `GrepRequest.realRoot`). */
	realRoot?: string;
	/** Honour .gitignore, .ignore and .rgignore. */
	respectIgnoreFiles: boolean;
	/** Only files matching this glob (see `compileGlob`); never brings back an ignored file. */
	include?: string;
	/** Skip files and folders matching this glob. */
	exclude?: string;
}

/** One folder on the way from the root to the paths being read: whether it is walked, and its rules. */
interface OpenFolder {
	/** Root-relative path ('' for the root). */
	relative: string;
	/** False when the folder (or one above it) is ignored or excluded: the walker never enters it. */
	entered: boolean;
	rules: IgnoreRules | undefined;
}

/** True when `folder` is `path`'s folder or one above it (root-relative, '' = the root). */
function holds(folder: string, path: string): boolean {
	return folder === "" || path.startsWith(`${folder}/`);
}

/**
 * The local walker's decisions (`walkFiles`) over a listing already in path order: a folder is
 * judged when the first path under it arrives — the same exclude glob and ignore rules, its own
 * ignore files entered as the walker enters them — and the files in it by its rules. Memory holds
 * the folders from the root to the current path, not the tree.
 */
class PathOrderFilter {
	private readonly include: GlobTest | undefined;
	private readonly exclude: GlobTest | undefined;
	private readonly open: OpenFolder[];

	constructor(
		private readonly root: string,
		request: RemoteWalkRequest,
		rootFolder: OpenFolder,
		private readonly present: Map<string, string[]>,
	) {
		this.include = request.include ? compileGlob(request.include) : undefined;
		this.exclude = request.exclude ? compileGlob(request.exclude) : undefined;
		this.open = [rootFolder];
	}

	/**
	 * True when the walker would list `path` (a root-relative file path). Synchronous while the
	 * path stays in the open folder (nearly every path): a promise only when a folder is entered.
	 */
	accepts(path: string): boolean | Promise<boolean> {
		const slash = path.lastIndexOf("/");
		const relative = slash === -1 ? "" : path.slice(0, slash);
		const top = this.open[this.open.length - 1] as OpenFolder;
		if (top.relative === relative) return this.acceptsIn(top, path);
		return this.folderOf(relative).then((folder) => this.acceptsIn(folder, path));
	}

	private acceptsIn(folder: OpenFolder, path: string): boolean {
		if (!folder.entered) return false;
		if (this.exclude?.(path, false)) return false;
		if (folder.rules?.ignores(path, false)) return false;
		return !this.include || this.include(path, false);
	}

	/** The open folder `relative`, opening the folders on the way to it (closing those left behind). */
	private async folderOf(relative: string): Promise<OpenFolder> {
		let top = this.open[this.open.length - 1] as OpenFolder;
		if (top.relative === relative) return top;
		while (!(top.relative === relative || holds(top.relative, relative))) {
			this.open.pop();
			top = this.open[this.open.length - 1] as OpenFolder;
		}
		while (top.relative !== relative) {
			const next = relative.indexOf("/", top.relative === "" ? 0 : top.relative.length + 1);
			const child = next === -1 ? relative : relative.slice(0, next);
			top = await this.enter(top, child);
			this.open.push(top);
		}
		return top;
	}

	private async enter(parent: OpenFolder, relative: string): Promise<OpenFolder> {
		if (!parent.entered) return { relative, entered: false, rules: undefined };
		const skipped = this.exclude?.(relative, true) || parent.rules?.ignores(relative, true);
		if (skipped) return { relative, entered: false, rules: undefined };
		const names = this.present.get(relative) ?? [];
		const rules = parent.rules ? await parent.rules.enter(posix.join(this.root, relative), relative, names) : undefined;
		return { relative, entered: true, rules };
	}
}

/**
 * The files a search of a remote folder covers, with the local walker's rules and in its path
 * order, streamed: the remote side lists the tree sorted (`streamSortedFiles`) while one more
 * call brings its ignore files; each path is judged as it arrives. Stopping early stops the
 * remote listing. Memory holds the ignore files and the current folder chain, not the file list.
 */
export async function* walkRemoteFiles(
	transport: RemoteTransport,
	run: RunScript,
	request: RemoteWalkRequest,
	signal: AbortSignal,
): AsyncGenerator<string[]> {
	// Both start at once: the listing streams in while the ignore files are read.
	const listing = streamSortedFiles(transport, request, signal);
	const ignoreFiles: Promise<RemoteIgnoreFiles> = request.respectIgnoreFiles
		? readRemoteIgnoreFiles(run, request)
		: Promise.resolve({ texts: new Map(), present: new Map() });
	// Handled here too: an early failure of the listing must not leave this rejection unobserved.
	ignoreFiles.catch(() => {});
	const first = listing.next();
	first.catch(() => {});
	try {
		const { texts, present } = await ignoreFiles;
		const readText = async (path: string) => {
			const text = texts.get(path);
			if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
			return text;
		};
		let rules = request.respectIgnoreFiles ? await IgnoreRules.forRoot(request.root, readText) : undefined;
		// As the walker does at the root: its own ignore files entered once more.
		if (rules) rules = await rules.enter(request.root, "", present.get("") ?? []);
		const filter = new PathOrderFilter(request.root, request, { relative: "", entered: true, rules }, present);
		for (let step = await first; !step.done; step = await listing.next()) {
			if (signal.aborted) throw new AbortError();
			const accepted: string[] = [];
			for (const path of step.value) {
				const verdict = filter.accepts(path);
				if (verdict === true || (verdict !== false && (await verdict))) accepted.push(path);
			}
			if (accepted.length > 0) yield accepted;
		}
	} finally {
		await listing.return(undefined);
	}
}
