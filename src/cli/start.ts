import nodeModule from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import { privateFolder } from "../checkpoints/private-folder/index.js";
import { keepWebAssemblyOnBaselineCompiler } from "../syntax/baseline-wasm/index.js";
import { type CliEntry, codeCacheDirectory, loadBundle } from "./startup/bundle-loader.js";
import { startProfile } from "./startup/start-profile.js";

/**
 * Starts the CLI that lives in `cliDirectory` (dist/cli) with the process's arguments, and exits
 * with its code. Both entries run it: `bin.cjs` (the package's bin: Node starts a CommonJS main
 * about 10 ms sooner than an ES module one) and `bin.js`. `npm run build` bundles this file with
 * the loader into `start.cjs`, which an entry requires synchronously.
 */
export async function startCli(cliDirectory: string): Promise<void> {
	// Compiled code is kept in the user's own cache folder, never in the shared temp folder (Node's
	// default): another local user could plant code there that this process would run.
	// NODE_DISABLE_COMPILE_CACHE=1 turns both caches off.
	const cacheHome = isAbsolute(process.env.XDG_CACHE_HOME ?? "")
		? (process.env.XDG_CACHE_HOME as string)
		: join(homedir(), ".cache");
	const cacheOff =
		process.env.NODE_DISABLE_COMPILE_CACHE !== undefined && process.env.NODE_DISABLE_COMPILE_CACHE !== "";
	const argv = process.argv.slice(2);

	// `npm run build` bundles the CLI into one file (scripts/bundle-cli.mjs); started with V8's code
	// cache, it is most of the way to a bare `node` start. TOOLBELT_NO_BUNDLE=1 loads the modules one
	// by one instead (real file names in stack traces; a test traces which modules a start needs).
	// `toolbelt mcp` has a bundle of its own, with the MCP SDK and zod that the others leave out.
	const noBundle = process.env.TOOLBELT_NO_BUNDLE !== undefined && process.env.TOOLBELT_NO_BUNDLE !== "";
	const profile = startProfile(argv);
	// Before the bundle is compiled: the code cache is only accepted under the flags it was made with,
	// and judging a command sets these (the shell grammar's WebAssembly).
	if (profile.baselineWebAssembly) keepWebAssemblyOnBaselineCompiler();
	const bundle = noBundle
		? undefined
		: loadBundle({
				path: join(cliDirectory, profile.cacheEntry === "mcp" ? "toolbelt-mcp.cjs" : "toolbelt.cjs"),
				madeFrom: join(cliDirectory, "bundle-entry.js"),
				cacheDirectory: cacheOff ? undefined : codeCacheDirectory(cacheHome),
				command: profile.cacheEntry,
			});
	if (bundle) process.once("exit", bundle.saveCodeCache);
	const { main, createProcessIO } =
		bundle?.entry ?? (await loadModules(cliDirectory, cacheOff ? undefined : cacheHome));
	const io = createProcessIO();
	const code = await main(argv, io);
	// Flush piped output before exiting; a lingering handle (stdin, a timer) must not keep us alive.
	await io.flushed();
	process.exit(code);
}

/** Without the bundle (a `tsc`-only build): the modules, under Node 22.1+'s own compile cache. */
async function loadModules(cliDirectory: string, cacheHome: string | undefined): Promise<CliEntry> {
	if (cacheHome !== undefined) {
		const cache = nodeModule as { enableCompileCache?: (directory: string) => unknown };
		const folder = cache.enableCompileCache && privateFolder(join(cacheHome, "toolbelt", "node-compile-cache"));
		if (folder) cache.enableCompileCache?.(folder);
	}
	// Loaded after the cache is on, so that they are what it covers. By URL: start.cjs holds
	// only the loader, and these must stay the ES modules beside it.
	const moduleUrl = (name: string) => pathToFileURL(join(cliDirectory, name)).href;
	const [{ createProcessIO }, { main }] = (await Promise.all([
		import(moduleUrl("io.js")),
		import(moduleUrl("main.js")),
	])) as [Pick<CliEntry, "createProcessIO">, Pick<CliEntry, "main">];
	return { createProcessIO, main };
}
