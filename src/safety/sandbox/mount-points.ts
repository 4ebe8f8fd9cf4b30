// A read-only bind over a path that does not exist needs a mount point, and bwrap can only make it
// on the host (the workspace is a bind of the host folder). So toolbelt makes an empty placeholder
// there for the time of the call and removes it after. Removing it while another sandbox has a
// mount on it would detach that mount (the kernel lazily unmounts a deleted mount point in other
// namespaces), so every call that relies on a placeholder records it here, under one lock, and a
// placeholder goes only when no live call of any toolbelt process of this user still uses it.
// The few file operations are synchronous: each call makes dozens, and a thread-pool round trip
// apiece costs more than the operations themselves, above all on a loaded machine.
import { randomUUID } from "node:crypto";
import {
	closeSync,
	constants,
	fstatSync,
	ftruncateSync,
	linkSync,
	lstatSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmdirSync,
	unlinkSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { monotonicMs } from "../../engine/index.js";
import { atProcessEnd } from "../../workspace/local/index.js";
import { SandboxUnavailableError } from "./errors.js";
import { isProcessAlive, processIdentity } from "./process-identity.js";

/** A path that may be a placeholder: missing now, or an empty entry a call made earlier. */
export interface MountPoint {
	/** Absolute path. */
	path: string;
	/** What to make when it is missing. */
	kind: "directory" | "file";
}

/** Mount points held for one call; release them when the sandbox is gone. */
export interface MountPointLease {
	/** Drops this call's claim and removes placeholders no live call uses. Never throws. */
	release(): Promise<void>;
}

/** The record shared by every toolbelt process of this user. */
export interface Registry {
	/** Placeholders toolbelt made, by path. */
	placeholders: Record<string, MountPoint["kind"]>;
	/** Calls in flight: their process (see `processIdentity`) and the paths they rely on. */
	claims: Record<string, { owner: string; paths: string[] }>;
}

const lockWaitMs = 10_000;
const registryFile = "mount-points.json";

/** Waits `ms` without returning to the event loop: the lock is also taken in the process's `exit` handler. */
function sleepSync(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tryLock(lock: string, claim: string): boolean {
	try {
		linkSync(claim, lock);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		return false;
	}
}

/**
 * Runs `action` on the registry under the lock shared by every toolbelt process of this user.
 * Synchronous: the section is a handful of file operations, contention is rare and short, and a
 * blocking wait lets the same code run in the process's `exit` handler.
 */
export function withRegistry<T>(stateDir: string, action: (registry: Registry) => T): T {
	const lock = join(stateDir, "mount-points.lock");
	// The lock file is born with its owner inside (link of a written file), so no one ever sees an
	// owner-less lock; one whose owner died (a crash inside this short section) is broken.
	const claim = join(stateDir, `mount-points.lock.${randomUUID()}`);
	writeFileSync(claim, processIdentity(), { mode: 0o600 });
	const deadline = monotonicMs() + lockWaitMs;
	try {
		while (!tryLock(lock, claim)) {
			const owner = readText(lock);
			if (owner !== undefined && !isProcessAlive(owner)) removeQuietly(lock);
			else if (monotonicMs() > deadline) {
				throw new SandboxUnavailableError(
					`The sandbox's mount-point lock ${lock} has been held by process ${owner} for over ${lockWaitMs / 1000} s. ` +
						"If no toolbelt process is stuck, delete the file and try again.",
				);
			} else sleepSync(2);
		}
	} finally {
		removeQuietly(claim);
	}
	try {
		const registry = readRegistry(stateDir);
		try {
			return action(registry);
		} finally {
			overwrite(join(stateDir, registryFile), JSON.stringify(registry));
		}
	} finally {
		removeQuietly(lock);
	}
}

/**
 * Writes `text` over the file's old bytes and cuts what is left after them. Not `writeFileSync`:
 * ext4 flushes a file that was truncated to zero and written again as it is closed (its
 * `auto_da_alloc` guard against a crash leaving it empty), which made each of the two registry
 * writes of a sandboxed call cost 2.5 ms on a loaded disk instead of 16 µs. A process killed
 * between the write and the cut leaves the new text followed by old bytes, which does not parse:
 * the registry then reads as empty, as an emptied file did before.
 */
function overwrite(path: string, text: string): void {
	const descriptor = openSync(path, constants.O_WRONLY | constants.O_CREAT, 0o600);
	try {
		const bytes = Buffer.from(text);
		writeSync(descriptor, bytes, 0, bytes.length, 0);
		ftruncateSync(descriptor, bytes.length);
	} finally {
		closeSync(descriptor);
	}
}

function readText(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
}

function removeQuietly(path: string): void {
	try {
		unlinkSync(path);
	} catch {
		// Already gone.
	}
}

function readRegistry(stateDir: string): Registry {
	try {
		const parsed = JSON.parse(readText(join(stateDir, registryFile)) ?? "{}") as Partial<Registry>;
		return { placeholders: parsed.placeholders ?? {}, claims: parsed.claims ?? {} };
	} catch {
		return { placeholders: {}, claims: {} };
	}
}

/** `O_PATH|O_DIRECTORY` (Linux): names a folder without reading it. */
const folderOnly = 0o10000000 | constants.O_DIRECTORY;

/** Thrown when a folder on the way to a placeholder is not at its path (a symbolic link on the way). */
class LinkOnTheWay extends Error {}

/**
 * Runs `action` on `path` spelled through its folder, opened and checked to be the folder at
 * `dirname(path)` (its kernel path is that very path, so no link lay on the way): a placeholder is
 * made or removed there and nowhere else, also when a folder on the way has just been swapped for
 * a link (as root, `mkdir` through a link made folders anywhere, and `rmdir` removed them). Throws
 * `LinkOnTheWay` when the folder is elsewhere, and the open's error when it is missing.
 */
function inCheckedFolder<T>(path: string, action: (spelled: string) => T): T {
	const descriptor = openSync(dirname(path), folderOnly);
	try {
		if (readlinkSync(`/proc/self/fd/${descriptor}`) !== dirname(path) || !fstatSync(descriptor).isDirectory()) {
			throw new LinkOnTheWay(path);
		}
		return action(`/proc/self/fd/${descriptor}/${basename(path)}`);
	} finally {
		closeSync(descriptor);
	}
}

/** Makes `point` when it is missing and records it as a placeholder. Throws `SandboxUnavailableError` when that fails. */
export function ensureExists(point: MountPoint, registry: Registry): void {
	try {
		inCheckedFolder(point.path, (spelled) => {
			if (lstatSync(spelled, { throwIfNoEntry: false })) return;
			if (point.kind === "directory") mkdirSync(spelled, { mode: 0o755 });
			else writeFileSync(spelled, "", { flag: "wx", mode: 0o644 });
			registry.placeholders[point.path] = point.kind;
		});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
		const why =
			error instanceof LinkOnTheWay
				? `a folder on the way to it is a symbolic link, which a command could have made to reach a folder outside (the placeholder would have been made there)`
				: `making its mount point failed (${(error as Error).message})`;
		throw new SandboxUnavailableError(
			`The sandbox cannot keep ${point.path} read-only: ${why}. ` +
				"Without it a command could create that path and plant code that runs outside the sandbox, so the command was not run. Replace the link by a folder, then try again.",
		);
	}
}

/** Removes a placeholder if it is still the empty thing toolbelt made, where toolbelt made it. */
function removePlaceholder(path: string, kind: MountPoint["kind"]): void {
	try {
		inCheckedFolder(path, (spelled) => {
			const info = lstatSync(spelled);
			if (kind === "directory" && info.isDirectory() && readdirSync(spelled).length === 0) rmdirSync(spelled);
			else if (kind === "file" && info.isFile() && info.size === 0) unlinkSync(spelled);
		});
	} catch {
		// Gone already, filled by the user meanwhile (theirs now), or reached through a link now: left.
	}
}

/** Drops claim `id` (and those of dead processes) and removes the placeholders no live claim uses. */
export function releaseClaim(registry: Registry, id: string): void {
	delete registry.claims[id];
	const inUse = new Set<string>();
	for (const [claimId, claim] of Object.entries(registry.claims)) {
		if (isProcessAlive(claim.owner)) for (const path of claim.paths) inUse.add(path);
		else delete registry.claims[claimId];
	}
	for (const [path, kind] of Object.entries(registry.placeholders)) {
		if (inUse.has(path)) continue;
		removePlaceholder(path, kind);
		delete registry.placeholders[path];
	}
}

/**
 * Makes sure each of `points` exists (an empty directory or file where it is missing), records that
 * this call uses them, and returns the lease that undoes it. Throws `SandboxUnavailableError` when a
 * mount point cannot be made.
 */
export async function leaseMountPoints(stateDir: string, points: readonly MountPoint[]): Promise<MountPointLease> {
	if (points.length === 0) return { release: async () => {} };
	const id = randomUUID();
	let released = false;
	// A process ended mid-call (a SIGTERM) removes the call's placeholders too, after its commands
	// (see `atProcessEnd`): an empty `.envrc` left behind would be listed by git and committed.
	const cancelAtEnd = atProcessEnd(() => void release());
	const release = async () => {
		if (released) return;
		released = true;
		cancelAtEnd();
		try {
			withRegistry(stateDir, (registry) => releaseClaim(registry, id));
		} catch {
			// Left to the next release of any toolbelt process (a dead claim is dropped there).
		}
	};
	try {
		withRegistry(stateDir, (registry) => {
			// The claim comes first: a placeholder made and then not recorded could be removed under us.
			registry.claims[id] = { owner: processIdentity(), paths: points.map((point) => point.path) };
			for (const point of points) ensureExists(point, registry);
		});
	} catch (error) {
		await release();
		throw error;
	}
	return { release };
}
