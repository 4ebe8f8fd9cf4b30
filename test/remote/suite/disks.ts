import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	chmodSync,
	existsSync,
	linkSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ToolWorkspace } from "../../../src/tools/index.js";
import { createLocalWorkspace, createMemoryWorkspace, MemoryFiles } from "../../../src/workspace/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../../src/workspace/remote/index.js";
import { dockerUnavailable, ensureTestImage, inContainer, removeContainer, startContainer } from "../docker-fixture.js";
import { bindMountPrefix, type SshdFixture, startSshdOrSkip } from "../sshd-fixture.js";

// Four backends, each on a disk of its own, and a view of every disk so a test can tell which
// one a call wrote. The remote backends' folders also exist on this machine's disk at the very
// path the workspace names (empty "decoys"): a tool that fell back to the local disk would write
// there, and the check after each case sees it. The test looks at the remote disks through a
// folder of this machine mounted there (a mount namespace for sshd, a bind mount for the
// container), never at the workspace's path: setting a case up and checking it costs no remote
// command, and the workspace still reaches its files only through ssh or `docker exec`.

/** One disk as a test sees it: set files up, read them back, take a snapshot of the whole folder. */
export interface Disk {
	/** Writes a file (path relative to the backend's folder), making its folders. */
	put(path: string, content: string | Buffer, mode?: number): void;
	/** Makes a symlink at `path` pointing to `target` (stored as given). */
	symlink(path: string, target: string): void;
	/** Gives the file at `existing` a second name `path` (a hard link); absent where there are none (memory). */
	hardlink?(path: string, existing: string): void;
	/** A file's content, or undefined when nothing is there. */
	read(path: string): Buffer | undefined;
	/** A file's permission bits, or undefined. */
	mode(path: string): number | undefined;
	/** Every entry of the folder (links not followed): kind, mode and a hash of the content. */
	snapshot(): Record<string, string>;
}

/** A backend of the suite: its folder, its disk, and workspaces on it. */
export interface SuiteBackend {
	name: "local" | "memory" | "ssh" | "docker";
	/** The workspace's folder (an absolute path as the backend sees it). */
	folder: string;
	disk: Disk;
	/** Why it is skipped here (sshd or dockerd missing outside CI), once known. */
	skipReason(): string | undefined;
	/** A workspace at `folder/sub`. */
	open(sub: string): ToolWorkspace;
	/** The key of its checkpoint store (a path for local, a URL otherwise). */
	storeKey(root: string): string;
	/** True when its paths are POSIX whatever this machine is. */
	posixPaths: boolean;
	/** True when it can run commands. */
	canRun: boolean;
}

function hashOf(data: Buffer): string {
	return createHash("sha256").update(data).digest("hex").slice(0, 16);
}

/** The local disk below `folder`. */
function localDisk(folder: string): Disk {
	const snapshot = (prefix = "", into: Record<string, string> = {}) => {
		const here = join(folder, prefix);
		if (!existsSync(here)) return into;
		for (const name of readdirSync(here).sort()) {
			const key = prefix ? `${prefix}/${name}` : name;
			const info = lstatSync(join(folder, key));
			if (info.isSymbolicLink()) into[key] = `link -> ${readlinkSync(join(folder, key))}`;
			else if (info.isDirectory()) {
				into[key] = "dir";
				snapshot(key, into);
			} else into[key] = `${(info.mode & 0o7777).toString(8)} ${hashOf(readFileSync(join(folder, key)))}`;
		}
		return into;
	};
	return {
		put: (path, content, mode = 0o644) => {
			mkdirSync(dirname(join(folder, path)), { recursive: true });
			writeFileSync(join(folder, path), content);
			chmodSync(join(folder, path), mode);
		},
		symlink: (path, target) => {
			mkdirSync(dirname(join(folder, path)), { recursive: true });
			symlinkSync(target, join(folder, path));
		},
		hardlink: (path, existing) => linkSync(join(folder, existing), join(folder, path)),
		read: (path) => (existsSync(join(folder, path)) ? readFileSync(join(folder, path)) : undefined),
		mode: (path) => (existsSync(join(folder, path)) ? lstatSync(join(folder, path)).mode & 0o7777 : undefined),
		snapshot: () => snapshot(),
	};
}

function memoryDisk(files: MemoryFiles, folder: string): Disk {
	return {
		put: (path, content, mode) => files.put(join(folder, path), content, mode),
		symlink: (path, target) => files.link(join(folder, path), target),
		read: (path) => files.get(join(folder, path)),
		mode: (path) => {
			const entry = files.snapshot(folder)[path];
			return entry && entry !== "dir" && !entry.startsWith("link") ? Number.parseInt(entry, 8) : undefined;
		},
		snapshot: () => {
			const result: Record<string, string> = {};
			for (const [key, value] of Object.entries(files.snapshot(folder))) {
				const [mode, base64] = value.split(" ");
				result[key] =
					value === "dir" || value.startsWith("link")
						? value
						: `${mode} ${hashOf(Buffer.from(base64 ?? "", "base64"))}`;
			}
			return result;
		},
	};
}

/** The suite's backends, and every disk they could reach (the decoys included). */
export interface SuiteBackends {
	backends: SuiteBackend[];
	/** Each disk by name: the four backends' folders, and this machine's disk at the remote folders' paths. */
	disks(): Map<string, Disk>;
	/** The folder checkpoint stores are kept in (this machine's disk, not a workspace). */
	stateDir(): string;
}

/**
 * Starts one sshd (whose sessions see their own folder at the path of the local decoy: a mount
 * namespace of their own) and one container (whose folder at that path is another folder of
 * this machine, mounted there) for the file, and opens workspaces on them.
 */
export function useSuiteBackends(): SuiteBackends {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-suite-")));
	const folders = {
		local: join(root, "local"),
		memory: join(root, "memory"),
		ssh: join(root, "ssh"),
		sshRemote: join(root, "ssh-remote"),
		docker: join(root, "docker"),
		dockerInside: join(root, "docker-inside"),
		state: join(root, "state"),
	};
	for (const folder of Object.values(folders)) mkdirSync(folder);
	const container = `toolbelt-suite-${process.pid}`;
	let sshd: SshdFixture | undefined;
	let sshSkip: string | undefined;
	let dockerSkip = dockerUnavailable();
	const opened: RemoteWorkspace[] = [];
	const memory = new MemoryFiles();
	memory.putFolder(folders.memory);
	beforeAll(async () => {
		({ sshd, skipReason: sshSkip } = await startSshdOrSkip({
			launchPrefix: bindMountPrefix(folders.sshRemote, folders.ssh),
		}));
		if (dockerSkip) return;
		try {
			ensureTestImage();
			startContainer(container, { [folders.dockerInside]: folders.docker });
		} catch (error) {
			dockerSkip = `the test container could not start: ${(error as Error).message}`;
		}
	}, 120_000);
	afterAll(async () => {
		await Promise.all(opened.map((workspace) => workspace.close()));
		// The shared master is left running by the workspaces: it ends here.
		if (sshd)
			spawnSync("ssh", ["-o", `ControlPath=${join(root, "ssh-master")}`, "-O", "exit", "127.0.0.1"], {
				stdio: "ignore",
				timeout: 10_000,
			});
		await sshd?.stop();
		// What the container's root made there is removed by that root (this user may not be root).
		if (!dockerSkip) inContainer(container, `find "${folders.docker}" -mindepth 1 -delete || true`);
		removeContainer(container);
		rmSync(root, { recursive: true, force: true });
	});
	const remote = (url: string, options = {}) => {
		const workspace = createWorkspaceFromUrl(url, options);
		opened.push(workspace);
		return workspace;
	};
	const backends: SuiteBackend[] = [
		{
			name: "local",
			folder: folders.local,
			disk: localDisk(folders.local),
			skipReason: () => undefined,
			open: (sub) => createLocalWorkspace(join(folders.local, sub)),
			storeKey: (path) => path,
			posixPaths: false,
			canRun: true,
		},
		{
			name: "memory",
			folder: folders.memory,
			disk: memoryDisk(memory, folders.memory),
			skipReason: () => undefined,
			open: (sub) => createMemoryWorkspace(join(folders.memory, sub), { files: memory }),
			storeKey: (path) => `memory://${path}`,
			posixPaths: true,
			canRun: false,
		},
		{
			name: "ssh",
			folder: folders.ssh,
			disk: localDisk(folders.sshRemote),
			skipReason: () => sshSkip,
			open: (sub) => {
				if (!sshd) throw new Error(sshSkip ?? "sshd not started");
				// One master connection serves every case's workspace (a ControlPath without % tokens is
				// shared): a case opens no connection of its own.
				const sshOptions = [...sshd.sshOptions, `ControlPath=${join(root, "ssh-master")}`];
				return remote(`${sshd.urlPrefix}${join(folders.ssh, sub)}`, { sshOptions });
			},
			storeKey: (path) => `${sshd?.urlPrefix}${path}`,
			posixPaths: true,
			canRun: true,
		},
		{
			name: "docker",
			folder: folders.docker,
			disk: localDisk(folders.dockerInside),
			skipReason: () => dockerSkip,
			open: (sub) => remote(`docker://${container}${join(folders.docker, sub)}`),
			storeKey: (path) => `docker://${container}${path}`,
			posixPaths: true,
			canRun: true,
		},
	];
	return {
		backends,
		disks: () => {
			const disks = new Map<string, Disk>();
			for (const backend of backends) if (!backend.skipReason()) disks.set(backend.name, backend.disk);
			for (const name of ["memory", "ssh", "docker"] as const) {
				disks.set(`this machine's disk at the ${name} folder`, localDisk(folders[name]));
			}
			return disks;
		},
		stateDir: () => folders.state,
	};
}
