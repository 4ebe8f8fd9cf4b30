import { posix } from "node:path";
import { IGNORE_FILE_NAMES } from "../tools/search/ignore-rules.js";
import type { WalkEntry, WalkSource } from "../tools/search/walker.js";
import type { RemoteRunResult } from "./run-remote.js";

/** Runs a small script on the remote side (the script channel, or a process of its own). */
export type RunScript = (script: string, args: string[]) => Promise<RemoteRunResult>;

/**
 * Lists a remote tree in one pass of POSIX `find`: `./file` lines for regular files, `G./dir/.git`
 * for a `.git` folder (never entered); folders are known from the paths of their files (the walk
 * yields files only). Symlinks and other kinds are left out, as the local walker leaves them out.
 * (One `-exec … \;` per `.git` only: busybox find mixes up two `-exec … +` in one expression.)
 */
const listScript = String.raw`
cd -- "$1" || exit 2
find . \( -name .git -type d -prune -exec printf 'G%s\n' {} \; \) -o \( -type f -print \)
`;

/** Prints each named file as `LENGTH\nTEXT` (`-1\n` when it cannot be read): the ignore files. */
const readTextsScript = String.raw`
export LC_ALL=C
for f; do
	if [ -f "$f" ] && [ -r "$f" ]; then v=$(cat -- "$f"; printf x); v=%{v%x}; printf '%s\n%s' "%{#v}" "$v"; else printf -- '-1\n'; fi
done
`.replaceAll("%{", "${");

class Entry implements WalkEntry {
	constructor(
		readonly name: string,
		private readonly folder: boolean,
	) {}
	isFile(): boolean {
		return !this.folder;
	}
	isDirectory(): boolean {
		return this.folder;
	}
}

function parseListing(root: string, output: Buffer): Map<string, Entry[]> {
	const folders = new Map<string, Entry[]>([[root, []]]);
	const add = (absolute: string, folder: boolean): void => {
		const parent = posix.dirname(absolute);
		if (!folders.has(parent)) add(parent, true);
		folders.get(parent)?.push(new Entry(posix.basename(absolute), folder));
		if (folder) folders.set(absolute, []);
	};
	for (const line of output.toString("utf8").split("\n")) {
		// A name with a newline in it breaks its line: such fragments start with neither form.
		if (line.startsWith("G./")) add(posix.join(root, line.slice(1)), true);
		else if (line.startsWith("./")) add(posix.join(root, line), false);
	}
	return folders;
}

/** The ignore files a walk of the snapshot may read: those in the tree, and those above the root. */
function ignoreFilesOf(root: string, folders: Map<string, Entry[]>): string[] {
	const wanted: string[] = [];
	for (const [folder, entries] of folders) {
		for (const entry of entries) {
			if (entry.isFile() && (IGNORE_FILE_NAMES as readonly string[]).includes(entry.name)) {
				wanted.push(posix.join(folder, entry.name));
			}
			if (entry.isDirectory() && entry.name === ".git") wanted.push(posix.join(folder, ".git/info/exclude"));
		}
	}
	for (let folder = posix.dirname(root); ; folder = posix.dirname(folder)) {
		for (const name of IGNORE_FILE_NAMES) wanted.push(posix.join(folder, name));
		if (folder === "/") break;
	}
	return wanted;
}

function parseTexts(paths: readonly string[], output: Buffer): Map<string, string> {
	const texts = new Map<string, string>();
	let position = 0;
	for (const path of paths) {
		const newline = output.indexOf(0x0a, position);
		if (newline === -1) break;
		const length = Number(output.toString("latin1", position, newline));
		position = newline + 1;
		if (length < 0) continue;
		texts.set(path, output.toString("utf8", position, position + length));
		position += length;
	}
	return texts;
}

/**
 * A snapshot of a remote tree for the walker: folders and files from one `find`, and the text of
 * the ignore files in it and above it from one more call, so the walk applies the same ignore
 * rules as a local one (the same code) without a round trip per folder.
 */
export async function snapshotTree(
	run: RunScript,
	root: string,
	respectIgnoreFiles: boolean,
): Promise<WalkSource & { files: number }> {
	const listed = await run(listScript, [root]);
	if (listed.exitCode !== 0 && listed.stdout.length === 0) {
		throw new Error(`Listing ${root} on the remote side failed: ${listed.stderr.trim()}`);
	}
	const folders = parseListing(root, listed.stdout);
	let texts = new Map<string, string>();
	if (respectIgnoreFiles) {
		const wanted = ignoreFilesOf(root, folders);
		texts = parseTexts(wanted, (await run(readTextsScript, wanted)).stdout);
	}
	let files = 0;
	for (const entries of folders.values()) files += entries.filter((entry) => entry.isFile()).length;
	return {
		files,
		readdir: async (absolutePath) => {
			const entries = folders.get(absolutePath);
			if (!entries) throw Object.assign(new Error(`ENOENT: ${absolutePath}`), { code: "ENOENT" });
			return entries;
		},
		readText: async (absolutePath) => {
			const text = texts.get(absolutePath);
			if (text === undefined) throw Object.assign(new Error(`ENOENT: ${absolutePath}`), { code: "ENOENT" });
			return text;
		},
	};
}
