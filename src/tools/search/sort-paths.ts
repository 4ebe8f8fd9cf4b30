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
	/** Names of the files directly in the folder. */
	files: string[];
	/** Sub-folders by name. */
	folders: Map<string, FolderNode>;
}

/** Stops a sorted listing early: return false once enough paths were taken. */
export type TakePath = (path: string) => boolean;

/** Sorts paths in `comparePaths` order (see `sortedPathsUntil`). */
export function sortPaths(paths: readonly string[]): string[] {
	const sorted: string[] = [];
	sortedPathsUntil(paths, (path) => {
		sorted.push(path);
		return true;
	});
	return sorted;
}

/**
 * Hands out paths in `comparePaths` order until `take` returns false. The paths go into a tree
 * of folders and each folder's names are sorted on their own (short strings, native order) only
 * when the walk reaches it: a listing cut to its first 2,000 lines sorts little more than those,
 * and no JavaScript comparator walks long shared prefixes a few hundred thousand times.
 */
export function sortedPathsUntil(paths: readonly string[], take: TakePath): void {
	const root: FolderNode = { files: [], folders: new Map() };
	for (const path of paths) {
		let folder = root;
		let start = 0;
		let slash = path.indexOf("/");
		while (slash !== -1) {
			const name = path.slice(start, slash);
			let next = folder.folders.get(name);
			if (!next) {
				next = { files: [], folders: new Map() };
				folder.folders.set(name, next);
			}
			folder = next;
			start = slash + 1;
			slash = path.indexOf("/", start);
		}
		folder.files.push(path.slice(start));
	}
	const visit = (folder: FolderNode, prefix: string): boolean => {
		// Two sorted lists (files, folders) merged: no object per entry, no comparator callback.
		const files = folder.files.sort();
		const folders = [...folder.folders.keys()].sort();
		let fileIndex = 0;
		let folderIndex = 0;
		while (fileIndex < files.length || folderIndex < folders.length) {
			const file = files[fileIndex];
			const name = folders[folderIndex];
			if (file !== undefined && (name === undefined || file <= name)) {
				fileIndex++;
				if (!take(prefix + file)) return false;
			} else if (name !== undefined) {
				folderIndex++;
				if (!visit(folder.folders.get(name) as FolderNode, `${prefix}${name}/`)) return false;
			}
		}
		return true;
	};
	visit(root, "");
}
