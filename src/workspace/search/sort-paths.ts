/**
 * Orders paths segment by segment (`/` sorts before every other character), so a folder's
 * files stay together: `a/b`, `a/c/d`, `a-b`. No allocation per comparison.
 */
export function comparePaths(left: string, right: string): number {
	const length = Math.min(left.length, right.length);
	for (let index = 0; index < length; index++) {
		let x = left.charCodeAt(index);
		let y = right.charCodeAt(index);
		if (x === y) continue;
		if (x === 0x2f) x = -1;
		if (y === 0x2f) y = -1;
		return x - y;
	}
	return left.length - right.length;
}

interface FolderNode {
	/** The folder's own path (`a/b`; empty for the root). */
	path: string;
	/** Full paths of the files directly in the folder. */
	files: string[];
	/** Sub-folders by name. */
	folders: Map<string, FolderNode>;
}

/** Stops a sorted listing early: return false once enough paths were taken. */
export type TakePath = (path: string) => boolean;

/** Sorts paths in `comparePaths` order (see `PathGroups`). */
export function sortPaths(paths: readonly string[]): string[] {
	const sorted: string[] = [];
	sortedPathsUntil(paths, (path) => {
		sorted.push(path);
		return true;
	});
	return sorted;
}

/** Hands out `paths` in `comparePaths` order until `take` returns false (see `PathGroups`). */
export function sortedPathsUntil(paths: readonly string[], take: TakePath): void {
	const groups = new PathGroups();
	for (const path of paths) groups.add(path);
	groups.walk(take);
}

/**
 * Collects paths for a sorted listing. Each path is filed under its folder as it arrives (one
 * slice and one map look-up), so a caller can collect while ripgrep is still walking; `walk`
 * then builds a tree of the few distinct folders and sorts each folder's files natively only
 * when it reaches them: a listing cut to its first 2,000 lines sorts little more than those, and
 * no JavaScript comparator runs per pair of paths.
 *
 * Within a folder, full paths share the folder's prefix, so comparing them natively compares the
 * names; and a sub-folder's path is a prefix of its contents, so a sub-folder `a` sorts before a
 * file `a-b` or `a.ts`, exactly as `comparePaths` puts `a/x` before them.
 */
export class PathGroups {
	private readonly filesByFolder = new Map<string, string[]>();
	/** How many paths were added. */
	count = 0;

	private lastFolder: string | undefined;
	private lastFiles: string[] = [];

	/** Adds one path (relative, `/`-separated). */
	add(path: string): void {
		this.count++;
		const slash = path.lastIndexOf("/");
		// ripgrep lists a folder's files one after another: most paths go where the last one went.
		const last = this.lastFolder;
		if (last !== undefined && slash === last.length && slash > 0 && path.startsWith(last)) {
			this.lastFiles.push(path);
			return;
		}
		const folder = path.slice(0, Math.max(0, slash));
		let files = this.filesByFolder.get(folder);
		if (files) files.push(path);
		else {
			files = [path];
			this.filesByFolder.set(folder, files);
		}
		this.lastFolder = folder;
		this.lastFiles = files;
	}

	/** UTF-8 bytes of every path added, one line each (`\n` between). */
	listingBytes(): number {
		// One native count per folder (its paths joined) is far cheaper than a call per path.
		let bytes = 0;
		for (const files of this.filesByFolder.values()) bytes += Buffer.byteLength(files.join("\n"));
		return bytes + Math.max(0, this.filesByFolder.size - 1);
	}

	/** Hands out the paths in `comparePaths` order until `take` returns false. */
	walk(take: TakePath): void {
		const root: FolderNode = { path: "", files: this.filesByFolder.get("") ?? [], folders: new Map() };
		for (const [folderPath, files] of this.filesByFolder) {
			if (folderPath === "") continue;
			let folder = root;
			let start = 0;
			for (;;) {
				const slash = folderPath.indexOf("/", start);
				const end = slash === -1 ? folderPath.length : slash;
				const name = folderPath.slice(start, end);
				let next = folder.folders.get(name);
				if (!next) {
					next = { path: folderPath.slice(0, end), files: [], folders: new Map() };
					folder.folders.set(name, next);
				}
				folder = next;
				if (slash === -1) break;
				start = slash + 1;
			}
			folder.files = files;
		}
		visitFolder(root, take);
	}
}

/** Walks one folder: its sorted files and sorted sub-folders merged; false once `take` said stop. */
function visitFolder(folder: FolderNode, take: TakePath): boolean {
	const files = folder.files.sort();
	const folders = [...folder.folders.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
	let fileIndex = 0;
	let folderIndex = 0;
	while (fileIndex < files.length || folderIndex < folders.length) {
		const file = files[fileIndex];
		const next = folders[folderIndex];
		if (file !== undefined && (next === undefined || file < next.path)) {
			fileIndex++;
			if (!take(file)) return false;
		} else if (next !== undefined) {
			folderIndex++;
			if (!visitFolder(next, take)) return false;
		}
	}
	return true;
}
