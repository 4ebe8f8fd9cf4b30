import type { GrepLine } from "../../../workspace/index.js";
import { comparePaths, sortPaths } from "../../../workspace/index.js";
import { cutAroundMatch } from "./cut-line.js";

/** A file's matches as the tally saw them. */
export interface TalliedFile {
	/** Path relative to the search root. */
	path: string;
	/** Matches seen in it. */
	matches: number;
	/** Line of its first match. */
	firstLine: number;
	/** Line of its last match seen. */
	lastLine: number;
	/** Its first match line, cut around the match. */
	sample: string;
}

/** Matches of files counted only by folder. */
export interface FolderCount {
	/** Matches in the folder's files that are not tallied one by one. */
	matches: number;
	/** Those files. */
	files: number;
}

/** Limits of a `GrepMatchTally` besides its capacity. */
export interface GrepMatchTallyOptions {
	/** Longest sample line kept per file, in characters (cut around the match). Default: 160. */
	sampleLength?: number;
	/** Folders counted one by one at most; more fold into their first path segment. Default: 2,000. */
	maxFolders?: number;
}

/** The defaults of `GrepMatchTallyOptions` (documented on each field). */
const tallyDefaults = { sampleLength: 160, maxFolders: 2000 } satisfies Required<GrepMatchTallyOptions>;

/**
 * Counts every match of a search as it streams, whatever the collector keeps: what a cut grep
 * result says about the part the model does not see. The first `capacity` files in path order
 * are tallied one by one (so both backends, whatever order their files arrive in, end with the
 * same ones); later files only count in their folder's total. Memory: `2 × capacity` files and at
 * most `maxFolders` folders. A file's lines must arrive together (as `SearchOperations.grep` promises).
 */
export class GrepMatchTally {
	/** Matches seen in all. */
	totalMatches = 0;
	/** Files with a match seen in all. */
	totalFiles = 0;
	private readonly files = new Map<string, TalliedFile>();
	private readonly folders = new Map<string, FolderCount>();
	/** After the first trim: files from this path on are counted by folder only. */
	private boundary: string | undefined;
	private previousPath: string | undefined;
	private countedInFolder: string | undefined;
	/** The tallied entry of the file streaming now, while it is tallied one by one. */
	private current: TalliedFile | undefined;
	/** The folder count the file streaming now adds to, once it is counted by folder only. */
	private currentFolder: FolderCount | undefined;

	private readonly sampleLength: number;
	private readonly maxFolders: number;

	/** @param capacity Files tallied one by one (the first in path order); more are counted by folder. */
	constructor(
		private readonly capacity: number,
		options: GrepMatchTallyOptions = {},
	) {
		this.sampleLength = options.sampleLength ?? tallyDefaults.sampleLength;
		this.maxFolders = options.maxFolders ?? tallyDefaults.maxFolders;
	}

	/** Takes a batch of streamed lines (context and binary lines are ignored). */
	add(lines: readonly GrepLine[]): void {
		for (const line of lines) {
			if (line.kind !== "match") continue;
			this.totalMatches++;
			// A file's lines come together: the common case is one more match of the file before.
			if (line.path === this.previousPath) {
				if (this.current !== undefined) {
					this.current.matches++;
					this.current.lastLine = line.lineNumber;
					continue;
				}
				if (this.currentFolder !== undefined) {
					this.currentFolder.matches++;
					continue;
				}
			}
			this.currentFolder = undefined;
			if (line.path !== this.previousPath) {
				this.totalFiles++;
				this.previousPath = line.path;
			}
			this.current = this.files.get(line.path);
			if (this.current) {
				this.current.matches++;
				this.current.lastLine = line.lineNumber;
			} else if (this.boundary !== undefined && comparePaths(line.path, this.boundary) >= 0) {
				this.currentFolder = this.countInFolder(line.path, 1, line.path !== this.countedInFolder);
				this.countedInFolder = line.path;
			} else {
				this.current = {
					path: line.path,
					matches: 1,
					firstLine: line.lineNumber,
					lastLine: line.lineNumber,
					sample: cutAroundMatch(line.text, line.matchStart, this.sampleLength).text,
				};
				this.files.set(line.path, this.current);
				if (this.files.size >= 2 * this.capacity) this.trim();
			}
		}
	}

	/** The files tallied one by one, in path order, and the folder counts of all the others. */
	result(): { files: TalliedFile[]; folders: Map<string, FolderCount> } {
		const paths = sortPaths([...this.files.keys()]);
		const folders = new Map<string, FolderCount>();
		for (const [folder, count] of this.folders) folders.set(folder, { ...count });
		const files: TalliedFile[] = [];
		for (const path of paths) {
			const file = this.files.get(path) as TalliedFile;
			if (files.length < this.capacity) files.push(file);
			else addToFolder(folders, folderKey(folders, path, this.maxFolders), file.matches, true);
		}
		return { files, folders };
	}

	/** Keeps the first `capacity` files in path order; the rest count by folder from now on. */
	private trim(): void {
		const paths = sortPaths([...this.files.keys()]);
		for (const path of paths.slice(this.capacity)) {
			const file = this.files.get(path) as TalliedFile;
			this.files.delete(path);
			this.countInFolder(path, file.matches, true);
			// The file still streaming goes on counting in its folder, as the same file.
			if (path === this.previousPath) {
				this.countedInFolder = path;
				this.current = undefined;
				this.currentFolder = this.countInFolder(path, 0, false);
			}
		}
		this.boundary = paths[this.capacity];
	}

	private countInFolder(path: string, matches: number, newFile: boolean): FolderCount {
		return addToFolder(this.folders, folderKey(this.folders, path, this.maxFolders), matches, newFile);
	}
}

/** The folder a path counts in: its parent (`a/b/`, or `./` at the root), or its top folder once there are `maxFolders`. */
function folderKey(folders: ReadonlyMap<string, FolderCount>, path: string, maxFolders: number): string {
	const slash = path.lastIndexOf("/");
	const parent = slash === -1 ? "./" : path.slice(0, slash + 1);
	if (folders.size < maxFolders || folders.has(parent)) return parent;
	const first = path.indexOf("/");
	return first === -1 ? "./" : path.slice(0, first + 1);
}

function addToFolder(folders: Map<string, FolderCount>, key: string, matches: number, newFile: boolean): FolderCount {
	const count = folders.get(key) ?? { matches: 0, files: 0 };
	count.matches += matches;
	if (newFile) count.files++;
	folders.set(key, count);
	return count;
}
