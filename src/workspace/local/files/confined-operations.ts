import { dirname } from "node:path";
import { isInsideRoot, outsideRootsError, realPathOf } from "../../paths/real-path.js";
import { createFdConfinedOperations } from "./fd-confined-operations.js";
import { type FileOperations, localFileOperations, type WriteFileOptions } from "./operations.js";

/** A symlink is judged by the folder it is made in: the link's own name is not there yet. */
function symlinkChecked(
	symlink: (target: string, path: string) => Promise<void>,
	check: (path: string) => Promise<void>,
): (target: string, path: string) => Promise<void> {
	return async (target, path) => {
		await check(dirname(path));
		await symlink(target, path);
	};
}

/**
 * File operations that refuse objects outside `roots` (real paths). Backends that can check the
 * object they really opened provide `confine` themselves (the local disk on Linux verifies each
 * descriptor through `/proc/self/fd`, see `fd-confined-operations.ts`). For any other backend
 * this wrapper checks the real path just before each operation: a concurrent symlink swap
 * between the check and the use can still redirect it, so it is the best effort available
 * through the `FileOperations` interface, not a guarantee.
 */
export function confineFileOperations(files: FileOperations, roots: readonly string[]): FileOperations {
	const own = files === localFileOperations ? createFdConfinedOperations(files, roots) : files.confine?.(roots);
	if (own) return { ...own, confinedTo: roots };
	const check = async (path: string) => {
		const real = await realPathOf(files, path);
		if (!roots.some((root) => isInsideRoot(root, real))) throw outsideRootsError(path, real, roots);
	};
	const checked =
		<TArgs extends [string, ...unknown[]], TResult>(operation: (...args: TArgs) => Promise<TResult>) =>
		async (...args: TArgs): Promise<TResult> => {
			await check(args[0]);
			return operation(...args);
		};
	return {
		stat: (path) => files.stat(path),
		lstat: (path) => files.lstat(path),
		...(files.statIfExists ? { statIfExists: files.statIfExists.bind(files) } : {}),
		realpath: (path) => files.realpath(path),
		readlink: (path) => files.readlink(path),
		readdir: checked((path: string) => files.readdir(path)),
		open: checked((path: string) => files.open(path)),
		readFile: checked((path: string) => files.readFile(path)),
		writeFile: checked((path: string, data: Uint8Array, options?: WriteFileOptions) =>
			files.writeFile(path, data, options),
		),
		mkdir: checked((path: string, options?: { recursive?: boolean }) => files.mkdir(path, options)),
		rename: async (from, to) => {
			await check(from);
			await check(to);
			await files.rename(from, to);
		},
		unlink: checked((path: string) => files.unlink(path)),
		...(files.rmdir ? { rmdir: checked((path: string) => files.rmdir?.(path) ?? Promise.resolve()) } : {}),
		chmod: checked((path: string, mode: number) => files.chmod(path, mode)),
		...(files.symlink ? { symlink: symlinkChecked(files.symlink.bind(files), check) } : {}),
		confinedTo: roots,
	};
}
