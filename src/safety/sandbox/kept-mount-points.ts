// Folder placeholders stay for the whole life of a sandbox instead of one call: removing an empty
// folder is the dearest file operation of a call (rmdir costs 1–2 ms apiece on ext4 under load,
// and a project without `.git`, `.vscode`, `.idea`… needs about seven), and an empty folder is
// invisible to git, so keeping it changes nothing a user or a tool reads from the tree. File
// placeholders (`.envrc`, `.mcp.json`…) still go after each call: git would list an empty file
// as untracked, and `git add -A` would commit it. The session's claim sits in the same registry
// as every call's, so no other toolbelt process removes a kept folder while this one lives, and
// a dead process's claim is dropped by the next release of any of them.
import { randomUUID } from "node:crypto";
import { lstatSync } from "node:fs";
import { atProcessEnd } from "../../workspace/local/index.js";
import {
	ensureExists,
	leaseMountPoints,
	type MountPoint,
	type MountPointLease,
	releaseClaim,
	withRegistry,
} from "./mount-points.js";
import { processIdentity } from "./process-identity.js";

/** Every open session of this process, released in the process's `exit` handler. */
const open = new Set<KeptMountPoints>();
let exitHandlerInstalled = false;

function isDirectory(path: string): boolean {
	return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** Mount points of one sandbox: folder placeholders kept until `close`, file placeholders per call. */
export class KeptMountPoints {
	private readonly id = randomUUID();
	private readonly held = new Set<string>();

	constructor(private readonly stateDir: string) {}

	/**
	 * Makes sure each of `points` exists for one call: a folder this session already holds is only
	 * checked (one lstat, no lock); new or vanished folders join the session's claim; files get a
	 * lease of their own. Returns the call's lease (its files). Throws `SandboxUnavailableError`
	 * when a mount point cannot be made.
	 */
	async lease(points: readonly MountPoint[]): Promise<MountPointLease> {
		const folders = points.filter((point) => point.kind === "directory");
		const missing = folders.filter((point) => !this.held.has(point.path) || !isDirectory(point.path));
		if (missing.length > 0) {
			this.installExitHandler();
			withRegistry(this.stateDir, (registry) => {
				// The claim comes first: a placeholder made and then not recorded could be removed under us.
				for (const point of missing) this.held.add(point.path);
				registry.claims[this.id] = { owner: processIdentity(), paths: [...this.held] };
				for (const point of missing) ensureExists(point, registry);
			});
		}
		return leaseMountPoints(
			this.stateDir,
			points.filter((point) => point.kind !== "directory"),
		);
	}

	/** Drops the session's claim and removes the folders no other live call uses. Never throws. */
	close(): void {
		open.delete(this);
		if (this.held.size === 0) return;
		this.held.clear();
		try {
			withRegistry(this.stateDir, (registry) => releaseClaim(registry, this.id));
		} catch {
			// Left to the next release of any toolbelt process (a dead claim is dropped there).
		}
	}

	private installExitHandler(): void {
		open.add(this);
		if (exitHandlerInstalled) return;
		exitHandlerInstalled = true;
		// A process that ends without closing its sandbox (a CLI call, a server stopped by a signal it
		// handles) still leaves the tree as it found it.
		atProcessEnd(() => {
			for (const session of [...open]) session.close();
		});
	}
}
