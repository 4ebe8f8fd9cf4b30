import { createHash, randomBytes } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { type Checkpoint, isBlobName, parseCheckpointLine } from "./log-entry.js";
import { inspectPrivateFolder } from "./private-folder/index.js";

export type { Checkpoint, CheckpointFile, FileImage } from "./log-entry.js";

/** Options of `CheckpointStore.open`. */
export interface CheckpointStoreOptions {
	/**
	 * The workspace's key: its real path, or for a remote workspace its URL with the remote real
	 * path (`ssh://dev@box/srv/app`), which no local path can equal. Checkpoints are kept per key.
	 */
	workspace: string;
	/**
	 * The user's state directory. Default: `$XDG_STATE_HOME` when it is an absolute path (empty or
	 * relative counts as unset, as the XDG spec says), else `~/.local/state`.
	 */
	stateDir?: string;
	/**
	 * Real paths of local folders the store must not be inside: the workspace's folders, where the
	 * agent's tools and commands write (they could rewrite the log undo trusts). Default: `workspace`
	 * when it is an absolute path (a local workspace's key is its real path).
	 */
	workspaceFolders?: readonly string[];
	/** Home directory for the default state directory. Default: the user's home. */
	homeDir?: string;
	/** Environment for `XDG_STATE_HOME`. Default: `process.env`. */
	env?: Record<string, string | undefined>;
	/** Most bytes of stored content per workspace; the oldest checkpoints go first. Default: 256 MiB. */
	maxBytes?: number;
	/** Checkpoints older than this are dropped, in ms. Default: 7 days. */
	maxAgeMs?: number;
	/**
	 * Most bytes of the log (a line per checkpoint); the oldest checkpoints go first. Default: 16 MiB.
	 * Each append reads the log whole, and a log past what Node reads into a string could not be
	 * read at all.
	 */
	maxLogBytes?: number;
}

/** Default bound on stored content per workspace. */
export const DEFAULT_CHECKPOINT_MAX_BYTES = 256 * 2 ** 20;
/** Default bound on the log's size per workspace. */
export const DEFAULT_CHECKPOINT_MAX_LOG_BYTES = 16 * 2 ** 20;
/** Default age after which checkpoints are dropped. */
export const DEFAULT_CHECKPOINT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** Thrown by `CheckpointStore.open` for a folder that is not the user's own private one. */
export class CheckpointStoreRefusedError extends Error {
	override readonly name = "CheckpointStoreRefusedError";
}

/** The user's state directory: `$XDG_STATE_HOME` when absolute (empty or relative is unset), else `~/.local/state`. */
export function stateHomeOf(env: Record<string, string | undefined>, homeDir: string): string {
	const given = env.XDG_STATE_HOME;
	return given !== undefined && isAbsolute(given) ? given : join(homeDir, ".local", "state");
}

/** The folder checkpoints of `workspace` live in (outside the repository). */
export function checkpointDirOf(options: CheckpointStoreOptions): string {
	const base = options.stateDir ?? stateHomeOf(options.env ?? process.env, options.homeDir ?? homedir());
	const key = createHash("sha256").update(options.workspace).digest("hex").slice(0, 24);
	return join(base, "toolbelt", "checkpoints", key);
}

/** The bytes a checkpoint's line takes in the log. */
function lineBytes(checkpoint: Checkpoint): number {
	return Buffer.byteLength(JSON.stringify(checkpoint)) + 1;
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
		private readonly maxLogBytes: number,
	) {}

	/**
	 * Opens (creating when needed) the store of a workspace. Its folder must be the user's own
	 * private one (`inspectPrivateFolder`: this user's, mode 0700, no link, nothing above it that
	 * others may write, not inside a workspace folder); otherwise this throws
	 * `CheckpointStoreRefusedError`: a log someone else can write would tell undo what to write.
	 */
	static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
		const wanted = checkpointDirOf(options);
		const notInside = options.workspaceFolders ?? (isAbsolute(options.workspace) ? [options.workspace] : []);
		const check = inspectPrivateFolder(wanted, { notInside });
		if (check.refused !== undefined) {
			throw new CheckpointStoreRefusedError(
				`The checkpoint store ${wanted} is not this user's own private folder: ${check.refused}. ` +
					"Nothing was read from it or written to it. Set XDG_STATE_HOME to a folder of your own outside the workspace (or remove that folder) and try again.",
			);
		}
		await mkdir(join(check.realPath, "blobs"), { recursive: true, mode: 0o700 });
		return new CheckpointStore(
			check.realPath,
			options.maxBytes ?? DEFAULT_CHECKPOINT_MAX_BYTES,
			options.maxAgeMs ?? DEFAULT_CHECKPOINT_MAX_AGE_MS,
			options.maxLogBytes ?? DEFAULT_CHECKPOINT_MAX_LOG_BYTES,
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

	/** The most content the store keeps (a before-image larger than this is never read into memory). */
	get maxContentBytes(): number {
		return this.maxBytes;
	}

	/** True when content is stored under `hash`. */
	async hasBlob(hash: string): Promise<boolean> {
		if (!isBlobName(hash)) return false;
		return (await stat(join(this.dir, "blobs", hash)).catch(() => undefined)) !== undefined;
	}

	/** The content stored under `hash`; rejects when there is none or it does not hash to its name. */
	async getBlob(hash: string): Promise<Buffer> {
		if (!isBlobName(hash)) throw new Error(`'${hash}' is not the name of stored content.`);
		const bytes = await readFile(join(this.dir, "blobs", hash));
		if (hashOf(bytes) !== hash) throw new Error(`The stored content ${hash} is damaged (its hash differs).`);
		return bytes;
	}

	/** The hash content would be stored under (no I/O). */
	static hashOf(bytes: Uint8Array): string {
		return hashOf(bytes);
	}

	/**
	 * Every checkpoint, oldest first (none before the first append). Rejects when the log exists but
	 * cannot be read: taking that for "no checkpoints" would tell undo there is nothing to take back.
	 */
	async list(): Promise<Checkpoint[]> {
		const text = await readFile(this.logPath, "utf8").catch((error: NodeJS.ErrnoException) => {
			if (error.code === "ENOENT") return "";
			throw new Error(`The checkpoint log ${this.logPath} could not be read: ${error.message}`);
		});
		const checkpoints: Checkpoint[] = [];
		for (const line of text.split("\n")) {
			// A line cut by a crash (or not a checkpoint at all): the ones before and after it still count.
			const checkpoint = line.trim() === "" ? undefined : parseCheckpointLine(line);
			if (checkpoint) checkpoints.push(checkpoint);
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
		// Only content the store keeps counts: one larger than `maxBytes` was never stored, and counting
		// it let one write over a sparse terabyte evict every older checkpoint.
		const sizes = new Map<string, number>();
		for (const checkpoint of kept) {
			for (const file of checkpoint.files)
				if (file.before.kind === "file" && file.before.size <= this.maxBytes)
					sizes.set(file.before.blob, file.before.size);
		}
		let total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
		let logBytes = kept.reduce((sum, checkpoint) => sum + lineBytes(checkpoint), 0);
		while ((total > this.maxBytes || logBytes > this.maxLogBytes) && kept.length > 1) {
			const [oldest, ...rest] = kept;
			kept = rest;
			if (oldest) logBytes -= lineBytes(oldest);
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
