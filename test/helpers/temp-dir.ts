import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/**
 * Gives each test a fresh temp dir (`toolbelt-XXXXXX` under the OS temp dir), removed after it.
 * Call at the top of a `describe` (or file); read the path with the returned getter inside tests.
 */
export function useTempDir(): () => string {
	let dir: string | undefined;
	beforeEach(async () => {
		dir = await mkdtemp(join(tmpdir(), "toolbelt-"));
	});
	afterEach(async () => {
		if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
		dir = undefined;
	});
	return () => {
		if (!dir) throw new Error("useTempDir(): the temp dir exists only inside a test");
		return dir;
	};
}
