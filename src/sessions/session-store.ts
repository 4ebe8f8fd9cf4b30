import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { inspectPrivateFolder, stateHomeOf } from "../checkpoints/index.js";
import { randomHex } from "../workspace/index.js";

/** Default most bytes all recorded sessions may take together: 256 MiB (the oldest go first). */
export const DEFAULT_SESSIONS_MAX_BYTES = 256 * 1024 * 1024;
/** Default most age of a recorded session: 30 days. */
export const DEFAULT_SESSIONS_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** Default most bytes of one session file: 32 MiB; past it the file says it was cut and records no more. */
export const DEFAULT_SESSION_FILE_MAX_BYTES = 32 * 1024 * 1024;

/** Options of `SessionStore.open`. */
export interface SessionStoreOptions {
	/** The folder the `toolbelt/sessions` folder goes in. Default: `$XDG_STATE_HOME`, else `~/.local/state`. */
	stateDir?: string;
	/** Environment to read `XDG_STATE_HOME` from. Default: `process.env`. */
	env?: Record<string, string | undefined>;
	/** Home folder. Default: `os.homedir()`. */
	homeDir?: string;
	/** Folders the store must not lie in (the workspace: the agent's commands write there). Default: none. */
	workspaceFolders?: readonly string[];
	/** Most bytes of all sessions together. Default: 256 MiB. */
	maxBytes?: number;
	/** Most age of a session, in ms. Default: 30 days. */
	maxAgeMs?: number;
	/** Most bytes of one session file. Default: 32 MiB. */
	maxFileBytes?: number;
}

/** The store refused to open: its folder is not the user's own private folder. */
export class SessionStoreRefusedError extends Error {
	override name = "SessionStoreRefusedError";
}

/** The folder sessions are stored in (outside every repository). */
export function sessionsDirOf(options: Pick<SessionStoreOptions, "stateDir" | "env" | "homeDir"> = {}): string {
	const base = options.stateDir ?? stateHomeOf(options.env ?? process.env, options.homeDir ?? homedir());
	return join(base, "toolbelt", "sessions");
}

/** A new session id: sortable by start time, then random (`20261202-063512-3f9a1c`). */
export function newSessionId(now = new Date()): string {
	const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
	return `${stamp}-${randomHex(3)}`;
}

const SESSION_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

/** True for a string shaped like a session id (no path separators, nothing to climb out with). */
export function isSessionId(text: string): boolean {
	return SESSION_ID.test(text);
}

/** An open session file: lines are appended whole, synchronously, so a crash keeps what came before. */
export interface SessionFile {
	readonly id: string;
	readonly path: string;
	/** Bytes in the file so far. */
	readonly bytes: number;
	/** Appends one line (without its newline); false once the size limit was reached (the line was dropped). */
	append(line: string): boolean;
	close(): void;
}

/**
 * The sessions folder: the user's own private folder (checked as the checkpoint store's is), one
 * `<id>.jsonl` file per session, mode 0600, bounded in total size, age and size per file.
 */
export class SessionStore {
	private constructor(
		/** The sessions folder (real path). */
		readonly dir: string,
		private readonly limits: { maxBytes: number; maxAgeMs: number; maxFileBytes: number },
	) {}

	/** Opens (creating when needed) the store; throws `SessionStoreRefusedError` for a folder that is not private. */
	static open(options: SessionStoreOptions = {}): SessionStore {
		const wanted = sessionsDirOf(options);
		const check = inspectPrivateFolder(wanted, { notInside: options.workspaceFolders ?? [] });
		if (check.refused !== undefined) {
			throw new SessionStoreRefusedError(
				`The sessions folder ${wanted} is not this user's own private folder: ${check.refused}. ` +
					"Nothing is recorded. Set XDG_STATE_HOME to a folder of your own outside the workspace (or remove that folder).",
			);
		}
		return new SessionStore(check.realPath, {
			maxBytes: options.maxBytes ?? DEFAULT_SESSIONS_MAX_BYTES,
			maxAgeMs: options.maxAgeMs ?? DEFAULT_SESSIONS_MAX_AGE_MS,
			maxFileBytes: options.maxFileBytes ?? DEFAULT_SESSION_FILE_MAX_BYTES,
		});
	}

	/** The path of a session's file; throws for a string that is not a session id. */
	pathOf(id: string): string {
		if (!isSessionId(id)) throw new Error(`'${id}' is not a session id (like 20261202-063512-3f9a1c).`);
		return join(this.dir, `${id}.jsonl`);
	}

	/** Creates a new session file (never an existing one, never through a link). */
	create(id = newSessionId()): SessionFile {
		const path = this.pathOf(id);
		const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND | constants.O_NOFOLLOW;
		return this.wrap(id, path, openSync(path, flags, 0o600));
	}

	/** Opens an existing session file to append to (resume); refuses one that is not this user's private file. */
	reopen(id: string): SessionFile {
		const path = this.pathOf(id);
		const descriptor = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
		const info = fstatSync(descriptor);
		if (!info.isFile() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0) {
			closeSync(descriptor);
			throw new SessionStoreRefusedError(`The session file ${path} is not this user's private file; it is not used.`);
		}
		return this.wrap(id, path, descriptor, info.size);
	}

	private wrap(id: string, path: string, descriptor: number, startBytes = 0): SessionFile {
		let bytes = startBytes;
		let full = false;
		let open = true;
		const limit = this.limits.maxFileBytes;
		return {
			id,
			path,
			get bytes() {
				return bytes;
			},
			append(line) {
				if (!open || full) return false;
				const data = Buffer.from(`${line}\n`);
				if (bytes + data.length > limit) {
					full = true;
					const cut = Buffer.from(
						`${JSON.stringify({ type: "cut", at: Date.now(), reason: `the session file reached its limit of ${limit} bytes; later records were dropped` })}\n`,
					);
					writeSync(descriptor, cut);
					bytes += cut.length;
					return false;
				}
				writeSync(descriptor, data);
				bytes += data.length;
				return true;
			},
			close() {
				if (!open) return;
				open = false;
				closeSync(descriptor);
			},
		};
	}

	/** Every session file, newest first (by id, which starts with the start time). */
	async ids(): Promise<string[]> {
		const names = await readdir(this.dir).catch(() => [] as string[]);
		return names
			.filter((name) => name.endsWith(".jsonl") && isSessionId(name.slice(0, -6)))
			.map((name) => name.slice(0, -6))
			.sort()
			.reverse();
	}

	/** The one session whose id is or starts with `prefix`; throws when none or several match. */
	async find(prefix: string): Promise<string> {
		const matches = (await this.ids()).filter((id) => id.startsWith(prefix));
		if (matches.length === 1 && matches[0] !== undefined) return matches[0];
		if (matches.length === 0)
			throw new Error(`No recorded session has the id '${prefix}'. List them with: toolbelt sessions --all`);
		throw new Error(
			`'${prefix}' matches ${matches.length} sessions (${matches.slice(0, 5).join(", ")}…): give more of the id.`,
		);
	}

	/**
	 * Removes sessions past the age limit, then the oldest until all fit the size limit. The
	 * sessions named in `keep` (the one being recorded) always stay.
	 */
	async prune(keep: readonly string[] = []): Promise<void> {
		const cutoff = Date.now() - this.limits.maxAgeMs;
		const entries: { id: string; size: number; modified: number }[] = [];
		for (const id of await this.ids()) {
			const info = await stat(join(this.dir, `${id}.jsonl`)).catch(() => undefined);
			if (info) entries.push({ id, size: info.size, modified: info.mtimeMs });
		}
		let total = entries.reduce((sum, entry) => sum + entry.size, 0);
		// Newest first: walk from the oldest end.
		for (const entry of [...entries].reverse()) {
			if (keep.includes(entry.id)) continue;
			if (entry.modified >= cutoff && total <= this.limits.maxBytes) continue;
			await rm(join(this.dir, `${entry.id}.jsonl`), { force: true });
			total -= entry.size;
		}
	}
}
