// bwrap mounts a `--bind SOURCE DEST` by the source's path, resolved again as it mounts: a folder
// checked a moment before (no link on the way) can have been swapped for a link by then — by a
// background job of an earlier call, in whose mount namespace a folder pinned only since is no
// mount point — and the mount follows the link: as root, a host folder such as /etc became writable.
// So each source is opened here, without following a link (O_PATH|O_NOFOLLOW), checked where it
// was opened (the kernel's path of the descriptor is the path planned, so no link lay on the way),
// and handed to bwrap as `--bind-fd`: bwrap mounts that very folder and checks that what appears at
// the destination is it (a link put at the destination meanwhile ends the start: "Race condition
// binding dirfd"). The shell that becomes bwrap reopens each descriptor through `/proc/<pid>/fd/<n>`
// of this process (the same folder, whatever its name is by then): standby shells are started
// before their call, so a descriptor cannot be given to them at spawn.
import { closeSync, constants, fstatSync, openSync, readlinkSync } from "node:fs";
import type { ReadDescriptor } from "../../workspace/index.js";
import { SandboxUnavailableError } from "./errors.js";

/** `O_PATH` (Linux): a descriptor that names the object without opening it for reading (no FIFO waits). */
const pathOnly = 0o10000000;
// libuv adds O_CLOEXEC to every open: no other child of this process inherits them.
const openFlags = pathOnly | constants.O_NOFOLLOW;

/** The first descriptor bwrap gets a source on: above the seccomp program's (9) and the network launcher's channel (10). */
export const firstSourceFd = 20;
/** Most sources one call may bind: each is a descriptor of this process until the call ends, and bwrap's stay below 1024 (a common limit). */
export const maxBindSources = 900;

/** The opened sources of one call: bwrap's descriptor for each, and the files its shell opens. */
export interface BindSources {
	/** bwrap's descriptor for each path given, in the same order (see `BwrapLayout.sources`). */
	fds: readonly number[];
	/** What the shell that becomes bwrap opens on those descriptors (this process's, through `/proc`). */
	reads: ReadDescriptor[];
	/** Closes this process's descriptors. Call once bwrap has mounted (the call's end). Never throws. */
	close(): void;
}

function swapped(path: string, why: string): SandboxUnavailableError {
	return new SandboxUnavailableError(
		`The sandbox cannot bind ${path}: ${why}, although it was checked a moment before — another process (a background job of an earlier call?) changed it meanwhile. ` +
			"The command was not run; end the jobs that rename folders in the workspace (bash_kill) and try again.",
	);
}

/** Opens `path` without following a link and checks it is the folder or file planned, at that very path. */
function openSource(path: string): number {
	let descriptor: number;
	try {
		descriptor = openSync(path, openFlags);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") throw swapped(path, "it is gone");
		throw new SandboxUnavailableError(
			`The sandbox cannot bind ${path}: opening it to hand it to bwrap failed (${(error as Error).message}). ` +
				"Without that, a folder swapped for a link meanwhile would be followed, so the command was not run.",
		);
	}
	try {
		const info = fstatSync(descriptor);
		// A link (O_NOFOLLOW opened the link itself), a FIFO or a device: never a source to hand over.
		if (!info.isDirectory() && !info.isFile()) throw swapped(path, "it is no longer a folder or a file");
		const real = readlinkSync(`/proc/self/fd/${descriptor}`);
		if (real !== path) throw swapped(path, `it now lies at ${real} (a symbolic link on the way)`);
		return descriptor;
	} catch (error) {
		closeSync(descriptor);
		throw error;
	}
}

/**
 * Opens each of `paths` (real paths; one descriptor each, also for a path given twice: bwrap closes
 * a descriptor once it has mounted it) and checks it (see the file's comment). Throws
 * `SandboxUnavailableError` when one is no longer what was planned, or when there are more than
 * `maxBindSources`; nothing stays open then.
 */
export function openBindSources(paths: readonly string[]): BindSources {
	const fds: number[] = [];
	const reads: ReadDescriptor[] = [];
	const own: number[] = [];
	const close = () => {
		for (const descriptor of own.splice(0)) {
			try {
				closeSync(descriptor);
			} catch {
				// Already closed.
			}
		}
	};
	try {
		if (paths.length > maxBindSources) {
			throw new SandboxUnavailableError(
				`The sandbox would bind more than ${maxBindSources} folders and files for this call (protected paths and the folders on the way to them). ` +
					"Remove nested repositories or writable paths you do not need, or run without the sandbox. The command was not run.",
			);
		}
		for (const path of paths) {
			const descriptor = openSource(path);
			own.push(descriptor);
			const fd = firstSourceFd + fds.length;
			fds.push(fd);
			reads.push({ fd, path: `/proc/${process.pid}/fd/${descriptor}` });
		}
	} catch (error) {
		close();
		throw error;
	}
	return { fds, reads, close };
}
