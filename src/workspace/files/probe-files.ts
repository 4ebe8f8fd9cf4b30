import type { FileOperations, ProbedFile } from "./contract.js";

/** The most bytes `probeFiles` brings of one file: what it answers is meant for small config files. Default of `maxBytes`. */
export const PROBE_MAX_BYTES = 1024 * 1024;

/**
 * Looks at many small files at once — what each name is and the content of those that are
 * readable files — in one round trip where the backend can (`FileOperations.probeFiles`), else
 * by one `lstat` and `readFile` per path, run side by side. A file larger than `maxBytes` is read
 * whole by `readFile` (never cut: a cut config file could hide its last lines). Never rejects for
 * a path that cannot be read: it is `missing`, or has no content.
 */
export async function probeFiles(
	files: FileOperations,
	paths: readonly string[],
	maxBytes = PROBE_MAX_BYTES,
): Promise<ProbedFile[]> {
	if (!files.probeFiles) return Promise.all(paths.map((path) => probeOne(files, path)));
	// The backend brings at most one byte more than `maxBytes`: that byte says the file was cut.
	const probed = await files.probeFiles(paths, maxBytes);
	return Promise.all(
		probed.map(async (found, index) =>
			found.content !== undefined && found.content.length > maxBytes
				? { ...found, content: await files.readFile(paths[index] as string).catch(() => undefined) }
				: found,
		),
	);
}

async function probeOne(files: FileOperations, path: string): Promise<ProbedFile> {
	const info = await files.lstat(path).catch(() => undefined);
	if (!info) return { kind: "missing" };
	// Only a regular file (links followed) is read: a FIFO named like a config file would block the read.
	const followed = info.kind === "file" ? info : await files.stat(path).catch(() => undefined);
	if (followed?.kind !== "file") return { kind: info.kind };
	const content = await files.readFile(path).catch(() => undefined);
	return content === undefined ? { kind: info.kind } : { kind: info.kind, content };
}
