// The files of one network session on disk: the session CA's certificate, the CA bundle and the
// masked copies of token files (what the sandbox mounts), in a folder of their own in the sandbox's
// private state directory, and the proxy's socket. They go when the session closes, when toolbelt
// exits, and on SIGINT/SIGTERM/SIGHUP (through the exit clean-up of the local backend: an MCP
// server stopped with SIGTERM, a CLI run killed by it). A process killed outright (SIGKILL) leaves
// its folder: the next session of this user removes the folders of processes that no longer run.

import { rmSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pidInUse } from "../../../workspace/index.js";
import { registerSessionCleanup } from "../../../workspace/local/index.js";

/** The folder a session's files go in, and how they are removed. */
export interface SessionFiles {
	/** `<stateDir>/network-<pid>-<random>`, mode 0700 like the state directory. */
	folder: string;
	/** Also remove this file with the folder (the proxy's socket, which lives beside it). */
	alsoRemove(path: string): void;
	/** Removes the folder and the named files now, and forgets the exit clean-up. Never throws. */
	remove(): void;
}

const folderPattern = /^network-(\d+)-/;

/** Removes the session folders of processes of this user that ended without removing them. */
async function removeAbandoned(stateDir: string): Promise<void> {
	const names = await readdir(stateDir).catch(() => [] as string[]);
	for (const name of names) {
		const pid = Number(folderPattern.exec(name)?.[1] ?? Number.NaN);
		if (!Number.isInteger(pid) || pid === process.pid || pidInUse(pid)) continue;
		await rm(join(stateDir, name), { recursive: true, force: true }).catch(() => {});
	}
}

/** Makes the folder of a new network session in `stateDir` and arranges its removal. */
export async function openSessionFiles(stateDir: string): Promise<SessionFiles> {
	await removeAbandoned(stateDir);
	const folder = await mkdtemp(join(stateDir, `network-${process.pid}-`));
	const extra = new Set<string>();
	let removed = false;
	const removeNow = () => {
		if (removed) return;
		removed = true;
		for (const path of [folder, ...extra]) {
			try {
				rmSync(path, { recursive: true, force: true });
			} catch {
				// Already gone, or the state directory itself went: nothing left to hide.
			}
		}
	};
	// `dispose` (disposeShellProcesses) leaves them: the sandbox may still be used; its close removes them.
	const unregister = registerSessionCleanup({ killNow: removeNow, dispose: async () => {} });
	return {
		folder,
		alsoRemove: (path) => extra.add(path),
		remove: () => {
			removeNow();
			unregister();
		},
	};
}
