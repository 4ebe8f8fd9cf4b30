import { dirname } from "node:path";
import {
	confineFileOperations,
	type FileOperations,
	localFileOperations,
	type ReadableFile,
} from "../../tools/index.js";

/** The largest settings file read (1 MiB): a real one is a few KB; a bigger one is refused, not read whole. */
export const SETTINGS_MAX_BYTES = 1024 * 1024;

/**
 * The disk a project folder lives on when it is not this machine's: a remote workspace's. Its
 * settings file is read through `files`, and trust records and messages name its folders by
 * `nameOf`, so a remote folder never shares a trust record with a local folder of the same path.
 */
export interface ProjectDisk {
	/** File access of that disk (a remote workspace's `files`): reads the settings file, writes "always" rules. */
	files: FileOperations;
	/**
	 * A name for an absolute path on that disk that no local path can have, e.g.
	 * `ssh://dev@box/srv/app` (a remote workspace's `urlOf`). Trust records are keyed by it.
	 */
	nameOf(absolutePath: string): string;
}

/** Why a settings file could not be read; `settings.ts` turns it into a `SettingsError` naming the file. */
export class SettingsReadError extends Error {
	override readonly name = "SettingsReadError";
	/** True when nothing could be read (no access, connection lost); false for a file refused for what it is. */
	readonly unreadable: boolean;

	constructor(message: string, options: { unreadable?: boolean } = {}) {
		super(message);
		this.unreadable = options.unreadable === true;
	}
}

function unreadable(error: unknown): SettingsReadError {
	return new SettingsReadError((error as Error).message, { unreadable: true });
}

function codeOf(error: unknown): string | undefined {
	return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Reads a settings file, at most `SETTINGS_MAX_BYTES`, from `disk` (default: this machine). It
 * must be a regular file (a FIFO or device would never end); with `within`, the object opened
 * must lie inside that real folder (a symlink out of the project is refused, checked on the
 * object really opened). Resolves to undefined when there is no file; throws `SettingsReadError`
 * otherwise. The caller hashes and parses exactly these bytes, so a file changed after the read
 * changes nothing of what applies.
 */
export async function readSettingsBytes(
	file: string,
	disk: FileOperations = localFileOperations,
	within?: string,
): Promise<Buffer | undefined> {
	let size: number;
	try {
		const info = await disk.stat(file);
		if (info.kind !== "file") throw new SettingsReadError("is not a regular file");
		size = info.size;
	} catch (error) {
		if (error instanceof SettingsReadError) throw error;
		if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return undefined;
		throw unreadable(error);
	}
	if (size > SETTINGS_MAX_BYTES) throw tooLarge(size);
	const reader = within ? confineFileOperations(disk, [within]) : disk;
	try {
		const handle = await reader.open(file);
		try {
			// One byte more than the size: a file that grew since the stat is read again, up to the limit.
			const bytes = await readUpTo(handle, size + 1);
			if (bytes.length <= size) return bytes;
			const grown = await readUpTo(handle, SETTINGS_MAX_BYTES + 1);
			if (grown.length > SETTINGS_MAX_BYTES) throw tooLarge(grown.length);
			return grown;
		} finally {
			await handle.close();
		}
	} catch (error) {
		if (error instanceof SettingsReadError) throw error;
		if ((error as { outsideRoots?: boolean }).outsideRoots || /outside the workspace/.test((error as Error).message))
			throw new SettingsReadError(
				`leads outside its project folder ${within ?? dirname(file)} (a symlink?); project settings are read only from inside the project`,
			);
		if (codeOf(error) === "ENOENT") return undefined;
		throw unreadable(error);
	}
}

/** Up to `limit` bytes from the start of an open file (fewer at its end). */
async function readUpTo(handle: ReadableFile, limit: number): Promise<Buffer> {
	const buffer = Buffer.allocUnsafe(limit);
	let length = 0;
	while (length < limit) {
		const count = await handle.read({ buffer, offset: length, length: limit - length, position: length });
		if (count === 0) break;
		length += count;
	}
	return buffer.subarray(0, length);
}

function tooLarge(size: number): SettingsReadError {
	return new SettingsReadError(
		`is ${size} bytes; a settings file may hold at most ${SETTINGS_MAX_BYTES} bytes, so it was not used`,
	);
}

/**
 * Writes a settings file on `disk` atomically: a temp file next to it, renamed over it (the
 * folder made first). Used for "always" answers, also on a remote project's disk.
 */
export async function writeSettingsText(file: string, text: string, disk: FileOperations): Promise<void> {
	await disk.mkdir(dirname(file), { recursive: true });
	const data = Buffer.from(text);
	if (disk.replaceFile) {
		await disk.replaceFile(file, data, { mode: 0o644 });
		return;
	}
	const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
	await disk.writeFile(temporary, data, { exclusive: true });
	try {
		await disk.rename(temporary, file);
	} catch (error) {
		await disk.unlink(temporary).catch(() => {});
		throw error;
	}
}
