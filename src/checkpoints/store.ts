import { createHash, randomBytes } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** What a file was at one moment: absent, a regular file (content by hash, mode) or a symlink. */
export type FileImage =
	| { kind: "absent" }
	| { kind: "file"; blob: string; mode: number; size: number }
	| { kind: "symlink"; target: string };

/** One file a call changed: before and after it. */
export interface CheckpointFile {
	/** The absolute path. */
	path: string;
	/** How the file was before the call. */
	before: FileImage;
	/** How the call left it (what undo expects to find, else something else changed it since). */
	after: FileImage;
}

/** One mutating call's checkpoint. */
export interface Checkpoint {
	/** Unique id. */
	id: string;
	/** The turn it belongs to (one user prompt, one `toolbelt tool` run, one MCP request). */
	turn: string;
	/** Milliseconds since the epoch. */
	time: number;
	/** The tool that made the change. */
	tool: string;
	/** The files it changed. */
	files: CheckpointFile[];
}

/** Options of `CheckpointStore.open`. */
export interface CheckpointStoreOptions {
	/**
	 * The workspace's key: its real path, or for a remote workspace its URL with the remote real
	 * path (`ssh://dev@box/srv/app`), which no local path can equal. Checkpoints are kept per key.
	 */
	workspace: string;
	/** The user's state directory. Default: `$XDG_STATE_HOME`, else `~/.local/state`. */
	stateDir?: string;
	/** Home directory for the default state directory. Default: the user's home. */
	homeDir?: string;
	/** Environment for `XDG_STATE_HOME`. Default: `process.env`. */
	env?: Record<string, string | undefined>;
	/** Most bytes of stored content per workspace; the oldest checkpoints go first. Default: 256 MiB. */
	maxBytes?: number;
	/** Checkpoints older than this are dropped, in ms. Default: 7 days. */
	maxAgeMs?: number;
}

/** Default bound on stored content per workspace. */
export const DEFAULT_CHECKPOINT_MAX_BYTES = 256 * 2 ** 20;
/** Default age after which checkpoints are dropped. */
export const DEFAULT_CHECKPOINT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** The folder checkpoints of `workspace` live in (outside the repository). */
export function checkpointDirOf(options: CheckpointStoreOptions): string {
	const env = options.env ?? process.env;
	const base = options.stateDir ?? env.XDG_STATE_HOME ?? join(options.homeDir ?? homedir(), ".local", "state");
	const key = createHash("sha256").update(options.workspace).digest("hex").slice(0, 24);
	return join(base, "toolbelt", "checkpoints", key);
}

function hashOf(bytes: Uint8Array): string {
	return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The checkpoints of one workspace on disk: a log (one JSON line per checkpoint) and the file
 * contents, stored once per distinct content (by SHA-256), bounded in size and age.
 */
export class CheckpointStore {
	private constructor(
		/** The folder of this workspace's checkpoints. */
		readonly dir: string,
		private readonly maxBytes: number,
		private readonly maxAgeMs: number,
	) {}

	/** Opens (creating when needed) the store of a workspace. */
	static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
		const dir = checkpointDirOf(options);
		await mkdir(join(dir, "blobs"), { recursive: true, mode: 0o700 });
		return new CheckpointStore(
			dir,
			options.maxBytes ?? DEFAULT_CHECKPOINT_MAX_BYTES,
			options.maxAgeMs ?? DEFAULT_CHECKPOINT_MAX_AGE_MS,
		);
	}

	private get logPath(): string {
		return join(this.dir, "log.jsonl");
	}

	/** Stores content once; returns its hash. */
	async putBlob(bytes: Uint8Array): Promise<string> {
		const hash = hashOf(bytes);
		const path = join(this.dir, "blobs", hash);
		if (await stat(path).catch(() => undefined)) return hash;
		const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
		await writeFile(temp, bytes, { mode: 0o600 });
		await rename(temp, path);
		return hash;
	}

	/** The content stored under `hash`. */
	getBlob(hash: string): Promise<Buffer> {
		return readFile(join(this.dir, "blobs", hash));
	}

	/** The hash content would be stored under (no I/O). */
	static hashOf(bytes: Uint8Array): string {
		return hashOf(bytes);
	}

	/** Every checkpoint, oldest first. */
	async list(): Promise<Checkpoint[]> {
		const text = await readFile(this.logPath, "utf8").catch(() => "");
		const checkpoints: Checkpoint[] = [];
		for (const line of text.split("\n")) {
			if (line.trim() === "") continue;
			try {
				checkpoints.push(JSON.parse(line) as Checkpoint);
			} catch {
				// A line cut by a crash: the ones before and after it still count.
			}
		}
		return checkpoints;
	}

	/** Appends a checkpoint, then drops what is past the bounds. */
	async append(checkpoint: Checkpoint): Promise<void> {
		await appendFile(this.logPath, `${JSON.stringify(checkpoint)}\n`, { mode: 0o600 });
		await this.prune();
	}

	/** Replaces the log with `checkpoints` (after an undo) and removes content no longer used. */
	async rewrite(checkpoints: readonly Checkpoint[]): Promise<void> {
		const temp = `${this.logPath}.${randomBytes(4).toString("hex")}.tmp`;
		await writeFile(temp, checkpoints.map((checkpoint) => `${JSON.stringify(checkpoint)}\n`).join(""), { mode: 0o600 });
		await rename(temp, this.logPath);
		await this.collectGarbage(checkpoints);
	}

	private async prune(): Promise<void> {
		const all = await this.list();
		const cutoff = Date.now() - this.maxAgeMs;
		let kept = all.filter((checkpoint) => checkpoint.time >= cutoff);
		const sizes = new Map<string, number>();
		for (const checkpoint of kept) {
			for (const file of checkpoint.files)
				if (file.before.kind === "file") sizes.set(file.before.blob, file.before.size);
		}
		let total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
		while (total > this.maxBytes && kept.length > 1) {
			const [oldest, ...rest] = kept;
			kept = rest;
			const still = new Set(
				rest.flatMap((checkpoint) =>
					checkpoint.files.map((file) => (file.before.kind === "file" ? file.before.blob : "")),
				),
			);
			for (const file of oldest?.files ?? []) {
				if (file.before.kind === "file" && !still.has(file.before.blob) && sizes.has(file.before.blob)) {
					total -= sizes.get(file.before.blob) ?? 0;
					sizes.delete(file.before.blob);
				}
			}
		}
		if (kept.length !== all.length) await this.rewrite(kept);
	}

	private async collectGarbage(checkpoints: readonly Checkpoint[]): Promise<void> {
		const used = new Set<string>();
		for (const checkpoint of checkpoints) {
			for (const file of checkpoint.files) if (file.before.kind === "file") used.add(file.before.blob);
		}
		const names = await readdir(join(this.dir, "blobs")).catch(() => [] as string[]);
		await Promise.all(
			names.filter((name) => !used.has(name)).map((name) => rm(join(this.dir, "blobs", name), { force: true })),
		);
	}
}
