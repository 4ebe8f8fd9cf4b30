import { chmod, lstat, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** One trusted folder: the settings file content the user saw and trusted. */
export interface TrustRecord {
	/** `sha256:<hex>` of the project settings file the user trusted. A different file asks again. */
	settingsHash: string;
	/** When the user trusted it (ISO 8601). */
	trustedAt: string;
}

/** The contents of `~/.toolbelt/trusted-folders.json`. */
interface TrustFile {
	version: 1;
	/** Keyed by the folder's real path. */
	folders: Record<string, TrustRecord>;
}

/** The path of the trust record file: in the user's own config, never in a repository. */
export function trustStorePath(homeDir: string = homedir()): string {
	return join(homeDir, ".toolbelt", "trusted-folders.json");
}

/**
 * Reads the trust records. A missing, unreadable or malformed file holds no records; so does a
 * file another user owns or could write (group or other write permission): another local user must
 * not be able to vouch for a folder on this user's behalf.
 */
export async function readTrustRecords(homeDir: string = homedir()): Promise<Record<string, TrustRecord>> {
	const file = trustStorePath(homeDir);
	try {
		const info = await lstat(file);
		if (!info.isFile() || (info.mode & 0o022) !== 0) return {};
		if (typeof process.getuid === "function" && info.uid !== process.getuid()) return {};
		const data = JSON.parse(await readFile(file, "utf8")) as Partial<TrustFile>;
		if (typeof data !== "object" || data === null || typeof data.folders !== "object" || data.folders === null)
			return {};
		return data.folders;
	} catch {
		return {};
	}
}

/** The record of one folder (by real path), if the store holds one. */
export async function trustRecordOf(realFolder: string, homeDir: string = homedir()): Promise<TrustRecord | undefined> {
	const records = await readTrustRecords(homeDir);
	return Object.hasOwn(records, realFolder) ? records[realFolder] : undefined;
}

/**
 * Records that the user trusts `realFolder` with the settings file whose hash is `settingsHash`
 * (replacing an earlier record of that folder). Written atomically (a temp file renamed over the
 * old one), the file 0600 and a newly made `~/.toolbelt` 0700.
 */
export async function writeTrustRecord(options: {
	/** The folder's real path. */
	realFolder: string;
	/** `sha256:<hex>` of its settings file. */
	settingsHash: string;
	/** Home directory holding `.toolbelt/`. Default: the user's home. */
	homeDir?: string;
}): Promise<void> {
	const file = trustStorePath(options.homeDir ?? homedir());
	const directory = dirname(file);
	const made = await mkdir(directory, { recursive: true, mode: 0o700 });
	if (made !== undefined) await chmod(directory, 0o700);
	const records = await readTrustRecords(options.homeDir ?? homedir());
	records[options.realFolder] = { settingsHash: options.settingsHash, trustedAt: new Date().toISOString() };
	const content: TrustFile = { version: 1, folders: records };
	const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
	// `wx`: never follow or reuse a file someone placed at the temp name.
	const handle = await open(temporary, "wx", 0o600);
	try {
		await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`);
		await handle.sync();
	} finally {
		await handle.close();
	}
	try {
		await rename(temporary, file);
	} catch (error) {
		await rm(temporary, { force: true });
		throw error;
	}
}
