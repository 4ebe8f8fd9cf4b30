/** What a file was at one moment: absent, a regular file (content by hash, mode) or a symlink. */
export type FileImage =
	| { kind: "absent" }
	| { kind: "file"; blob: string; mode: number; size: number }
	| { kind: "symlink"; target: string };

/** One file a call changed: before and after it. */
export interface CheckpointFile {
	/** The absolute path. */
	path: string;
	/** How the file was before the call. */
	before: FileImage;
	/** How the call left it (what undo expects to find, else something else changed it since). */
	after: FileImage;
	/**
	 * The folders the call made to hold the file (missing before it, there after it), deepest
	 * first: undo removes those still empty. Absent when it made none.
	 */
	madeFolders?: string[];
}

/** One mutating call's checkpoint. */
export interface Checkpoint {
	/** Unique id. */
	id: string;
	/** The turn it belongs to (one user prompt, one `toolbelt tool` run, one MCP request). */
	turn: string;
	/** Milliseconds since the epoch. */
	time: number;
	/** The tool that made the change. */
	tool: string;
	/** The files it changed. */
	files: CheckpointFile[];
}

/** A stored content's name: the SHA-256 of the content, in lower-case hex. */
const BLOB_NAME = /^[0-9a-f]{64}$/;

/** True when `name` can name stored content (and no other file: no `/`, no `..`). */
export function isBlobName(name: unknown): name is string {
	return typeof name === "string" && BLOB_NAME.test(name);
}

function isCount(value: unknown): value is number {
	return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function imageOf(value: unknown): FileImage | undefined {
	const image = value as Partial<Record<string, unknown>> | null;
	if (typeof image !== "object" || image === null) return undefined;
	if (image.kind === "absent") return { kind: "absent" };
	if (image.kind === "symlink" && typeof image.target === "string") return { kind: "symlink", target: image.target };
	if (
		image.kind === "file" &&
		isBlobName(image.blob) &&
		isCount(image.mode) &&
		image.mode <= 0o7777 &&
		isCount(image.size)
	)
		return { kind: "file", blob: image.blob, mode: image.mode, size: image.size };
	return undefined;
}

function fileOf(value: unknown): CheckpointFile | undefined {
	const file = value as Partial<Record<string, unknown>> | null;
	if (typeof file !== "object" || file === null || typeof file.path !== "string") return undefined;
	const before = imageOf(file.before);
	const after = imageOf(file.after);
	if (!before || !after) return undefined;
	if (file.madeFolders === undefined) return { path: file.path, before, after };
	const folders = file.madeFolders;
	if (!Array.isArray(folders) || !folders.every((folder) => typeof folder === "string")) return undefined;
	return { path: file.path, before, after, madeFolders: folders as string[] };
}

/**
 * One line of a store's log as a checkpoint, or undefined when it is not one (a line cut by a
 * crash, or one that was not written by a store: every field is checked, and content may only be
 * named by its hash, so an entry cannot make undo read another file as "stored content").
 */
export function parseCheckpointLine(line: string): Checkpoint | undefined {
	let value: Partial<Record<string, unknown>>;
	try {
		value = JSON.parse(line) as Partial<Record<string, unknown>>;
	} catch {
		return undefined;
	}
	if (typeof value !== "object" || value === null || !Array.isArray(value.files)) return undefined;
	if (typeof value.id !== "string" || typeof value.turn !== "string" || typeof value.tool !== "string")
		return undefined;
	if (!isCount(value.time)) return undefined;
	const files = value.files.map(fileOf);
	if (files.some((file) => file === undefined)) return undefined;
	return { id: value.id, turn: value.turn, time: value.time, tool: value.tool, files: files as CheckpointFile[] };
}
