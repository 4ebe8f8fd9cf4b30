#!/usr/bin/env node
import nodeModule, { createRequire } from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliEntry } from "./bundle-loader.js";

// Compiled code is kept in the user's own cache folder, never in the shared temp folder (Node's
// default): another local user could plant code there that this process would run.
// NODE_DISABLE_COMPILE_CACHE=1 turns both caches off.
const cacheHome = isAbsolute(process.env.XDG_CACHE_HOME ?? "")
	? (process.env.XDG_CACHE_HOME as string)
	: join(homedir(), ".cache");
const cacheOff = process.env.NODE_DISABLE_COMPILE_CACHE !== undefined && process.env.NODE_DISABLE_COMPILE_CACHE !== "";
const argv = process.argv.slice(2);

// `npm run build` bundles the CLI into one file (scripts/bundle-cli.mjs); started with V8's code
// cache, it is most of the way to a bare `node` start. TOOLBELT_NO_BUNDLE=1 loads the modules one
// by one instead (real file names in stack traces; a test traces which modules a start needs).
// `toolbelt mcp` has a bundle of its own, with the MCP SDK and zod that the others leave out.
const noBundle = process.env.TOOLBELT_NO_BUNDLE !== undefined && process.env.TOOLBELT_NO_BUNDLE !== "";
const command = cacheEntryCommand(argv);
const loader = noBundle ? undefined : requireBundleLoader();
const bundle = loader?.loadBundle({
	path: fileURLToPath(new URL(command === "mcp" ? "./toolbelt-mcp.cjs" : "./toolbelt.cjs", import.meta.url)),
	madeFrom: fileURLToPath(new URL("./bundle-entry.js", import.meta.url)),
	cacheDirectory: cacheOff ? undefined : loader.codeCacheDirectory(cacheHome),
	command,
});
if (bundle) process.once("exit", bundle.saveCodeCache);
const { main, createProcessIO } = bundle?.entry ?? (await loadModules());
const code = await main(argv, createProcessIO());
// Flush piped output before exiting; a lingering handle (stdin, a timer) must not keep us alive.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));

/**
 * The loader (`bundle-loader.ts` and the three modules it imports), as the one CommonJS file
 * `npm run build` makes of it (`bundle-loader.cjs`): `require` reads it synchronously, where
 * Node's ES module loader would open, stat, read and close each of four files on its thread
 * pool — sixteen hand-overs that a loaded machine makes wait for a time slice each. Undefined
 * without it (a `tsc`-only build, which has no bundle to load either).
 */
function requireBundleLoader(): typeof import("./bundle-loader.js") | undefined {
	try {
		return createRequire(import.meta.url)("./bundle-loader.cjs") as typeof import("./bundle-loader.js");
	} catch {
		return undefined;
	}
}

/** Without the bundle (a `tsc`-only build): the modules, under Node 22.1+'s own compile cache. */
async function loadModules(): Promise<CliEntry> {
	if (!cacheOff) {
		const cache = nodeModule as { enableCompileCache?: (directory: string) => unknown };
		const { privateFolder } = await import("./private-folder.js");
		const folder = cache.enableCompileCache && privateFolder(join(cacheHome, "toolbelt", "node-compile-cache"));
		if (folder) cache.enableCompileCache?.(folder);
	}
	// Loaded after the cache is on, so that they are what it covers.
	const [{ createProcessIO }, { main }] = await Promise.all([import("./io.js"), import("./main.js")]);
	return { createProcessIO, main };
}

/**
 * The command word, for the bundle and the cache entry: the first of a few known words, else
 * "other". A guess (`--cwd mcp tools` picks mcp) costs only speed: either bundle runs every command.
 */
function cacheEntryCommand(args: string[]): string {
	const known = ["tool", "tools", "mcp", "run", "undo", "checkpoints"];
	return args.find((word) => known.includes(word)) ?? "other";
}
