import { createHash, randomUUID } from "node:crypto";
import { lstat, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { SandboxUnavailableError } from "./errors.js";

/** `$XDG_RUNTIME_DIR` (the user's own tmpfs, where one exists: cheaper than a disk under load), else the temp dir. */
function defaultBase(): string {
	const runtime = process.env.XDG_RUNTIME_DIR;
	return runtime && isAbsolute(runtime) ? runtime : tmpdir();
}

/**
 * The sandbox's private state directory, `<base>/toolbelt-sandbox-<uid>` (mode 0700): the seccomp
 * program bwrap reads, and the record of mount points in use. It is shared by every toolbelt process
 * of this user, and kept read-only in the sandbox so a command cannot rewrite it. Refuses one that
 * another user made or opened up (a planted directory could swap the filter).
 */
export async function sandboxStateDir(base: string = defaultBase()): Promise<string> {
	const uid = process.getuid?.() ?? 0;
	const directory = join(base, `toolbelt-sandbox-${uid}`);
	await mkdir(directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
		if (error.code !== "EEXIST") throw error;
	});
	const info = await lstat(directory);
	if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) {
		throw new SandboxUnavailableError(
			`The sandbox's state directory ${directory} is not a private directory of this user (a symlink, another owner, or open to others). ` +
				"Remove it (or set TMPDIR to a private directory) and try again; commands are not run unsandboxed.",
		);
	}
	return directory;
}

/** Writes `content` to `<directory>/<prefix>-<hash>` once (atomically) and returns its path. */
export async function contentFile(directory: string, prefix: string, content: Buffer): Promise<string> {
	const hash = createHash("sha256").update(content).digest("hex").slice(0, 16);
	const file = join(directory, `${prefix}-${hash}`);
	const current = await readFile(file).catch(() => undefined);
	if (current?.equals(content)) return file;
	const temporary = `${file}.${randomUUID()}`;
	await writeFile(temporary, content, { mode: 0o600 });
	await rename(temporary, file);
	return file;
}
