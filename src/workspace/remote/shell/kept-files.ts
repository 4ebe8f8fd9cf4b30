import { MAX_RETAINED_OUTPUT_BYTES, MAX_RETAINED_OUTPUT_FILES } from "../../local/index.js";

/** What a kept file's session says about it (a `ShellSession`). */
export interface KeptFileOwner {
	/** True once the session's process ended. */
	readonly exited: boolean;
	/** True once the remote side said it removed its kept files (its orderly end). */
	readonly removedItsFiles: boolean;
}

/** One remote output file whose path was named to the model (or that a failed run left). */
export interface KeptFile {
	/** Its path on the remote side. */
	path: string;
	/** Its size when the command ended. */
	bytes: number;
	/** The session whose orderly end removes it; undefined for a `once` run's (its session ended with it). */
	owner: KeptFileOwner | undefined;
	/** True when background jobs of the command may still write it: never removed to make room. */
	live: boolean;
}

/**
 * The kept output files of one remote workspace, oldest first, within the same bounds as locally
 * (`MAX_RETAINED_OUTPUT_FILES` files, `MAX_RETAINED_OUTPUT_BYTES` in all: a long session of cut
 * outputs cannot fill the remote temp disk), and who removes each when the workspace closes: its
 * session's orderly end, or — for a session that lost its connection, or a `once` run's — the
 * workspace itself, with one `rm` line through a session still open.
 */
export class KeptFiles {
	private files: KeptFile[] = [];

	/**
	 * Records a file just named to the model; returns the older files to remove now (never it,
	 * never a live one), oldest first, so that the rest stays within the bounds.
	 */
	add(file: KeptFile): string[] {
		this.files.push(file);
		let count = this.files.length;
		let bytes = this.files.reduce((total, kept) => total + kept.bytes, 0);
		const removed = new Set<KeptFile>();
		for (const older of this.files.slice(0, -1)) {
			if (count <= MAX_RETAINED_OUTPUT_FILES && bytes <= MAX_RETAINED_OUTPUT_BYTES) break;
			if (older.live) continue;
			removed.add(older);
			count--;
			bytes -= older.bytes;
		}
		if (removed.size > 0) this.files = this.files.filter((kept) => !removed.has(kept));
		return [...removed].map((kept) => kept.path);
	}

	/** Files no open session will remove at its end: their session ended without a `bye`, or had none. */
	orphans(): string[] {
		return this.files
			.filter(({ owner }) => !owner || (owner.exited && !owner.removedItsFiles))
			.map((kept) => kept.path);
	}

	/**
	 * After the sessions were closed: the files not known to be gone — their owner did not say it
	 * removed its files, and they were not dropped through `via` (a session that then said so).
	 * Forgets every file.
	 */
	leftAfterClose(dropped: readonly string[], via: KeptFileOwner | undefined): string[] {
		const gone = new Set(via?.removedItsFiles ? dropped : []);
		const left = this.files
			.filter((kept) => !gone.has(kept.path) && !kept.owner?.removedItsFiles)
			.map((kept) => kept.path);
		this.files = [];
		return left;
	}
}
