import { accessSync, constants as fsConstants, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pidInUse } from "../../workspace/index.js";

// Where a hook launcher's slots live (see `hook-launcher.ts`): a folder per process in memory.

/**
 * The memory file system the slots live in, or undefined where there is none (then hooks are
 * spawned from Node). Why there: a sandbox mounts a fresh `/dev`, so no sandboxed command sees a
 * slot's output (which decides a call) or its run file (what the next hook runs); and each
 * hook writes its stdin into the slot (replacing a small file on this VM's ext4 took ~1.1 ms, on
 * tmpfs ~0.02 ms).
 */
export function slotsParent(): string | undefined {
	try {
		accessSync(SHARED_MEMORY, fsConstants.W_OK | fsConstants.X_OK);
		return SHARED_MEMORY;
	} catch {
		return undefined;
	}
}

const SHARED_MEMORY = "/dev/shm";

/** Slot folders are named for their process, so that those of a process that is gone can be found. */
export const SLOTS_PREFIX = "toolbelt-hooks-";

/**
 * Removes the slot folders of processes no longer running: a process ended by a signal runs no
 * exit handler, and its folder would stay in memory until the next boot.
 */
export function removeAbandonedSlots(parent: string): void {
	let names: string[] = [];
	try {
		names = readdirSync(parent);
	} catch {
		return;
	}
	for (const name of names) {
		if (!name.startsWith(SLOTS_PREFIX)) continue;
		const pid = Number(name.slice(SLOTS_PREFIX.length).split("-")[0]);
		if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || pidInUse(pid)) continue;
		// Only this user's own folders: the memory file system is shared by every user, and root,
		// who could remove anyone's, must not remove a folder another user named like ours.
		if (!ownFolder(join(parent, name))) continue;
		try {
			rmSync(join(parent, name), { recursive: true, force: true });
		} catch {
			// Another user's: theirs to remove.
		}
	}
}

/** True for a real folder (not a link) owned by this process's user. */
function ownFolder(path: string): boolean {
	try {
		const info = lstatSync(path);
		return info.isDirectory() && info.uid === process.getuid?.();
	} catch {
		return false;
	}
}
