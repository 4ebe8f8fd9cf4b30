import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import nodeModule from "node:module";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

/**
 * The CLI turns on Node's compile cache (Node 22.1+). Node's default place for it is the shared
 * temp folder, where another local user could plant compiled code the next start would run: the
 * cache must live in the user's own cache folder. It is used when the CLI runs unbundled
 * (TOOLBELT_NO_BUNDLE=1, or a tsc-only build); the bundle's own cache is code-cache.test.ts's.
 */

const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
if (!hasCompileCache)
	console.log(`skipping the compile-cache test: Node ${process.versions.node} has no compile cache`);

beforeAll(() => {
	ensureBuiltCli();
});

describe.skipIf(!hasCompileCache)("the CLI's compile cache", () => {
	const tempDir = useTempDir();

	it("is kept under XDG_CACHE_HOME (or ~/.cache), never in the shared temp folder", () => {
		const shared = join(tempDir(), "shared-tmp");
		const cacheHome = join(tempDir(), "cache");
		const home = join(tempDir(), "home");
		for (const folder of [shared, cacheHome, home]) mkdirSync(folder);
		const run = (extra: Record<string, string>) => {
			const env = cleanEnv({ TMPDIR: shared, HOME: home, TOOLBELT_NO_BUNDLE: "1", ...extra });
			if (extra.XDG_CACHE_HOME === undefined) delete env.XDG_CACHE_HOME;
			return spawnSync(process.execPath, [ensureBuiltCli(), "tools"], { env, encoding: "utf8", timeout: 30_000 });
		};
		expect(run({ XDG_CACHE_HOME: cacheHome }).status).toBe(0);
		expect(existsSync(join(shared, "node-compile-cache"))).toBe(false);
		expect(existsSync(join(cacheHome, "toolbelt", "node-compile-cache"))).toBe(true);

		expect(run({}).status).toBe(0);
		expect(existsSync(join(shared, "node-compile-cache"))).toBe(false);
		expect(existsSync(join(home, ".cache", "toolbelt", "node-compile-cache"))).toBe(true);
	});
});
