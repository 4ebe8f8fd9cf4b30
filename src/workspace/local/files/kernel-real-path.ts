import * as fsSync from "node:fs";
import { constants as fsConstants } from "node:fs";
import { basename, dirname } from "node:path";

const directoryFlags = fsConstants.O_RDONLY | (fsConstants.O_DIRECTORY ?? 0);

/** True where an open descriptor's path can be read back (Linux: `/proc/self/fd`), asked once. */
let descriptorPaths: boolean | undefined;
function canReadDescriptorPaths(): boolean {
	descriptorPaths ??= process.platform === "linux" && fsSync.existsSync("/proc/self/fd");
	return descriptorPaths;
}

/**
 * The real path of a folder as the kernel resolved it when it opened it, or undefined where that
 * cannot be told (a folder that may be searched but not read, a path past PATH_MAX, no descriptor
 * left): the C library answers those. Throws for a missing name (ENOENT) or a non-folder (ENOTDIR).
 */
function openedFolderPath(path: string): string | undefined {
	let descriptor: number;
	try {
		descriptor = fsSync.openSync(path, directoryFlags);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") throw error;
		return undefined;
	}
	try {
		const real = fsSync.readlinkSync(`/proc/self/fd/${descriptor}`);
		// A folder removed meanwhile reads back as "… (deleted)": let the C library answer instead.
		return real.startsWith("/") && !real.endsWith(" (deleted)") ? real : undefined;
	} catch {
		return undefined;
	} finally {
		fsSync.closeSync(descriptor);
	}
}

/**
 * `realpath(3)` in time linear in the path's length. The C library resolves a path one name at a
 * time, asking the kernel for the link at each prefix: a path 1,800 folders deep costs 1,800
 * look-ups of growing length (~110 ms each real path, and undo asks for ~150). Here the kernel walks
 * the path once: a folder is opened (`O_DIRECTORY`: no FIFO, device or socket is ever opened) and
 * its descriptor's path read back; a name that is no folder lies in its folder's real path, unless
 * it is a link, which the C library follows. Same answers and errors as `realpathSync.native`,
 * which also answers wherever the descriptor cannot tell (not Linux, a folder that cannot be read).
 */
export function kernelRealPath(path: string): string {
	if (!canReadDescriptorPaths()) return fsSync.realpathSync.native(path);
	try {
		const real = openedFolderPath(path);
		if (real !== undefined) return real;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") throw error;
		// A name that is no folder (or a path through one): its folder answers, then the name.
		const folder = dirname(path);
		if (folder !== path && !fsSync.lstatSync(path).isSymbolicLink()) {
			const folderReal = openedFolderPath(folder);
			if (folderReal !== undefined) return `${folderReal === "/" ? "" : folderReal}/${basename(path)}`;
		}
	}
	return fsSync.realpathSync.native(path);
}
