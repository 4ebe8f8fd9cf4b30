import {
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	openSync,
	readdirSync,
	readSync,
	renameSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";
import { privateFolder } from "../../checkpoints/private-folder/index.js";

/** Largest cache entry read: 64 MiB (the CLI's is about 1 MB); anything bigger is not ours. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/** Bundles whose entries are kept beside the current one (other installs, recent builds). */
const KEPT_BUNDLES = 4;
/** The file name of an entry is its name and this. */
export const CODE_CACHE_SUFFIX = ".v8cache";

/**
 * A folder of V8 code caches that only this user can have written. Bytecode read from it is run,
 * so every check errs on the side of "not used": a folder that is a symlink, someone else's, or
 * open to group or others, and a file that is not a regular file of this user writable by only
 * them, are ignored (the CLI then compiles from source, as without a cache). No checks are
 * possible without `process.getuid` (Windows), so there is no cache there.
 */
export class CodeCacheStore {
	private constructor(private readonly directory: string) {}

	/** Creates the folder (mode 0700) if needed and checks it (`privateFolder`); undefined when it is not safe to use. */
	static open(directory: string): CodeCacheStore | undefined {
		const folder = privateFolder(directory);
		return folder === undefined ? undefined : new CodeCacheStore(folder);
	}

	/**
	 * The entry's bytes, or undefined when it is absent, unreadable or fails a check. Each entry
	 * starts with its own name, so one renamed from another bundle's (another script of the same
	 * length, which V8 would accept) is refused too.
	 */
	read(name: string): Buffer | undefined {
		let descriptor: number;
		try {
			// O_NOFOLLOW: a symlink planted in place of the entry is refused by the kernel itself.
			descriptor = openSync(join(this.directory, name + CODE_CACHE_SUFFIX), constants.O_RDONLY | constants.O_NOFOLLOW);
		} catch {
			return undefined;
		}
		try {
			// Checked on the open file, so swapping the path after a check changes nothing.
			const stat = fstatSync(descriptor);
			const foreign = stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0;
			if (!stat.isFile() || foreign || stat.size === 0 || stat.size > MAX_ENTRY_BYTES) return undefined;
			const buffer = Buffer.allocUnsafe(stat.size);
			let offset = 0;
			while (offset < buffer.length) {
				const count = readSync(descriptor, buffer, offset, buffer.length - offset, offset);
				if (count === 0) return undefined;
				offset += count;
			}
			const header = entryHeader(name);
			return buffer.subarray(0, header.length).equals(header) ? buffer.subarray(header.length) : undefined;
		} catch {
			return undefined;
		} finally {
			closeSync(descriptor);
		}
	}

	/**
	 * Writes the entry atomically (a private temporary file, then a rename), so a reader never sees
	 * half of it, and drops the entries of all but the `KEPT_BUNDLES` most recent other bundles
	 * (`bundle` is the prefix shared by one bundle's entries). Failures are ignored: it is a cache.
	 */
	write(name: string, data: Buffer, bundle: string): void {
		const target = join(this.directory, name + CODE_CACHE_SUFFIX);
		const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
		try {
			const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
			const descriptor = openSync(temporary, flags, 0o600);
			try {
				const contents = Buffer.concat([entryHeader(name), data]);
				let offset = 0;
				while (offset < contents.length) {
					offset += writeSync(descriptor, contents, offset, contents.length - offset);
				}
			} finally {
				closeSync(descriptor);
			}
			renameSync(temporary, target);
		} catch {
			try {
				unlinkSync(temporary);
			} catch {
				// Never created.
			}
			return;
		}
		this.prune(bundle);
	}

	private prune(current: string): void {
		try {
			const newest = new Map<string, number>();
			const files: { name: string; bundle: string }[] = [];
			for (const name of readdirSync(this.directory)) {
				if (!name.endsWith(CODE_CACHE_SUFFIX) && !name.endsWith(".tmp")) continue;
				const bundle = name.split("-")[0] ?? "";
				const modified = lstatSync(join(this.directory, name)).mtimeMs;
				// A temporary file left by a killed writer, after a minute.
				if (name.endsWith(".tmp") && Date.now() - modified > 60_000) unlinkSync(join(this.directory, name));
				if (!name.endsWith(CODE_CACHE_SUFFIX) || bundle === current) continue;
				files.push({ name, bundle });
				newest.set(bundle, Math.max(newest.get(bundle) ?? 0, modified));
			}
			const kept = new Set(
				[...newest.entries()]
					.sort((left, right) => right[1] - left[1])
					.slice(0, KEPT_BUNDLES)
					.map(([bundle]) => bundle),
			);
			for (const file of files) if (!kept.has(file.bundle)) unlinkSync(join(this.directory, file.name));
		} catch {
			// Another process pruned first, or the folder went away: nothing to do.
		}
	}
}

function entryHeader(name: string): Buffer {
	return Buffer.from(`toolbelt code cache ${name}\n`);
}
