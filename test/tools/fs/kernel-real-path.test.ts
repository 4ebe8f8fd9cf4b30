// The local real path walks the path once in the kernel (see kernel-real-path.ts); it must answer
// what realpath(3) answers, errors included, for every kind of name.
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kernelRealPath } from "../../../src/workspace/local/files/kernel-real-path.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const dir = useTempDir();

/** The answer or the error code of `resolve(path)`. */
function outcome(resolve: (path: string) => string, path: string): string {
	try {
		return resolve(path);
	} catch (error) {
		return `error ${(error as NodeJS.ErrnoException).code}`;
	}
}

describe("kernelRealPath", () => {
	it("answers as realpath(3) does for folders, files, links, specials and missing names", () => {
		const root = dir();
		mkdirSync(join(root, "real", "sub"), { recursive: true });
		writeFileSync(join(root, "real", "file.txt"), "x");
		symlinkSync("real", join(root, "folder-link"));
		symlinkSync("real/file.txt", join(root, "file-link"));
		symlinkSync("nowhere", join(root, "dangling"));
		symlinkSync("loop", join(root, "loop"));
		execFileSync("mkfifo", [join(root, "real", "fifo")]);
		const paths = [
			root,
			join(root, "real"),
			join(root, "real", "sub"),
			join(root, "real", "file.txt"),
			join(root, "real", "fifo"),
			join(root, "folder-link"),
			join(root, "folder-link", "sub", "..", "file.txt"),
			join(root, "file-link"),
			join(root, "dangling"),
			join(root, "loop"),
			join(root, "missing"),
			join(root, "missing", "deeper"),
			`${join(root, "real", "file.txt")}/`,
			`${join(root, "real", "file.txt")}/x`,
			"/",
			"/dev/null",
		];
		for (const path of paths) expect(outcome(kernelRealPath, path), path).toBe(outcome(realpathSync.native, path));
	});
});
