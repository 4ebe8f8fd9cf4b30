// A read-only bind over a path that does not exist needs a mount point, and bwrap can only make it
// on the host (the workspace is a bind of the host folder). So toolbelt makes an empty placeholder
// there for the time of the call and removes it after. Removing it while another sandbox has a
// mount on it would detach that mount (the kernel lazily unmounts a deleted mount point in other
// namespaces), so every call that relies on a placeholder records it here, under one lock, and a
// placeholder goes only when no live call of any toolbelt process of this user still uses it.
import { randomUUID } from "node:crypto";
import { link, lstat, mkdir, readdir, readFile, rmdir, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
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

const lockWaitMs = 10_000;
const placeholdersFile = "placeholders.json";

type Placeholders = Record<string, MountPoint["kind"]>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function withLock<T>(stateDir: string, action: () => Promise<T>): Promise<T> {
	const lock = join(stateDir, "mounts.lock");
	// The lock file is born with its owner inside (link of a written file), so no one ever sees an
	// owner-less lock; one whose owner died (a crash inside this short section) is broken.
	const claim = join(stateDir, `mounts.lock.${randomUUID()}`);
	await writeFile(claim, processIdentity(), { mode: 0o600 });
	const deadline = Date.now() + lockWaitMs;
	try {
		for (;;) {
			const taken = await link(claim, lock).then(
				() => true,
				(error: NodeJS.ErrnoException) => {
					if (error.code !== "EEXIST") throw error;
					return false;
				},
			);
			if (taken) break;
			const owner = await readFile(lock, "utf8").catch(() => undefined);
			if (owner !== undefined && !isProcessAlive(owner)) await unlink(lock).catch(() => {});
			else if (Date.now() > deadline) {
				throw new SandboxUnavailableError(
					`The sandbox's mount-point lock ${lock} has been held by process ${owner} for over ${lockWaitMs / 1000} s. ` +
						"If no toolbelt process is stuck, delete the file and try again.",
				);
			} else await sleep(5);
		}
	} finally {
		await unlink(claim).catch(() => {});
	}
	try {
		return await action();
	} finally {
		await unlink(lock).catch(() => {});
	}
}

async function readPlaceholders(stateDir: string): Promise<Placeholders> {
	const text = await readFile(join(stateDir, placeholdersFile), "utf8").catch(() => "{}");
	try {
		return JSON.parse(text) as Placeholders;
	} catch {
		return {};
	}
}

async function ensureExists(point: MountPoint, placeholders: Placeholders): Promise<void> {
	const info = await lstat(point.path).catch(() => undefined);
	if (info) return;
	try {
		if (point.kind === "directory") await mkdir(point.path, { mode: 0o755 });
		else await writeFile(point.path, "", { flag: "wx", mode: 0o644 });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
		throw new SandboxUnavailableError(
			`The sandbox cannot keep ${point.path} read-only: making its mount point failed (${(error as Error).message}). ` +
				"Without it a command could create that path and plant code that runs outside the sandbox, so the command was not run.",
		);
	}
	placeholders[point.path] = point.kind;
}

/** Removes a placeholder if it is still the empty thing toolbelt made. */
async function removePlaceholder(path: string, kind: MountPoint["kind"]): Promise<void> {
	const info = await lstat(path).catch(() => undefined);
	if (!info) return;
	if (kind === "directory" && info.isDirectory()) await rmdir(path).catch(() => {});
	else if (kind === "file" && info.isFile() && info.size === 0) await unlink(path).catch(() => {});
}

async function liveClaims(claimsDir: string): Promise<Set<string>> {
	const inUse = new Set<string>();
	for (const name of await readdir(claimsDir).catch(() => [])) {
		const file = join(claimsDir, name);
		const claim = await readFile(file, "utf8")
			.then((text) => JSON.parse(text) as { owner: string; paths: string[] })
			.catch(() => undefined);
		if (!claim || !isProcessAlive(claim.owner)) {
			await unlink(file).catch(() => {});
			continue;
		}
		for (const path of claim.paths) inUse.add(path);
	}
	return inUse;
}

/**
 * Makes sure each of `points` exists (an empty directory or file where it is missing), records that
 * this call uses them, and returns the lease that undoes it. Throws `SandboxUnavailableError` when a
 * mount point cannot be made.
 */
export async function leaseMountPoints(stateDir: string, points: readonly MountPoint[]): Promise<MountPointLease> {
	if (points.length === 0) return { release: async () => {} };
	const claimsDir = join(stateDir, "mount-claims");
	const claimFile = join(claimsDir, `${randomUUID()}.json`);
	let released = false;
	const release = async () => {
		if (released) return;
		released = true;
		await withLock(stateDir, async () => {
			await unlink(claimFile).catch(() => {});
			const inUse = await liveClaims(claimsDir);
			const placeholders = await readPlaceholders(stateDir);
			for (const [path, kind] of Object.entries(placeholders)) {
				if (inUse.has(path)) continue;
				await removePlaceholder(path, kind);
				delete placeholders[path];
			}
			await writeFile(join(stateDir, placeholdersFile), JSON.stringify(placeholders), { mode: 0o600 });
		}).catch(() => {});
	};
	try {
		await withLock(stateDir, async () => {
			await mkdir(claimsDir, { recursive: true, mode: 0o700 });
			const placeholders = await readPlaceholders(stateDir);
			// The claim comes first: a placeholder made and then not recorded could be removed under us.
			const paths = points.map((point) => point.path);
			await writeFile(claimFile, JSON.stringify({ owner: processIdentity(), paths }), { mode: 0o600 });
			try {
				for (const point of points) await ensureExists(point, placeholders);
			} finally {
				await writeFile(join(stateDir, placeholdersFile), JSON.stringify(placeholders), { mode: 0o600 });
			}
		});
	} catch (error) {
		await release();
		throw error;
	}
	return { release };
}
