import { isAscii } from "node:buffer";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";
import { baselineWebAssemblyFlagsSet } from "../../syntax/baseline-wasm/index.js";
import type { CliIO } from "../io.js";
import { CodeCacheStore } from "./code-cache-store.js";
import { deferringRequire } from "./deferred-require.js";

/** What `bin.ts` runs: the bundle's exports (`src/cli/bundle-entry.ts`). */
export interface CliEntry {
	/** The command line (`main.ts`). */
	main: (argv: string[], io: CliIO) => Promise<number>;
	/** The process as a `CliIO` (`io.ts`). */
	createProcessIO: () => CliIO;
}

/** A bundle that has run, and how to keep its compiled code for the next start. */
export interface LoadedBundle {
	/** The bundle's exports. */
	entry: CliEntry;
	/**
	 * Stores V8's code of everything compiled so far, when the start had no usable cache entry.
	 * Call it late (at exit), so the functions the command ran are in it. Never throws.
	 */
	saveCodeCache: () => void;
}

/** Options of `loadBundle`. */
export interface LoadBundleOptions {
	/** The bundle `npm run build` wrote (`scripts/bundle-cli.mjs`). */
	path: string;
	/**
	 * tsc's output the bundle is made from. Newer than the bundle means a `tsc` run since the last
	 * `npm run build`: the bundle is stale and the modules are used instead.
	 */
	madeFrom: string;
	/** The code cache folder, or undefined for none. */
	cacheDirectory: string | undefined;
	/**
	 * Which command starts (tool, tools, mcp…): each gets its own cache entry, so that entry holds
	 * exactly the functions that command runs.
	 */
	command: string;
}

// scripts/bundle-cli.mjs starts the bundle with this line; the hash is of everything after it.
const HEADER = /^\/\/ toolbelt-bundle sha256=([0-9a-f]{64})\n/;

/**
 * Node loads ES modules one file at a time, and before Node 22 keeps none of their compiled code
 * between starts: the CLI's ~180 modules (350 for `mcp`) cost most of its start. The bundle is
 * one CommonJS file, compiled here as a `vm.Script` with V8's code cache, keyed by the bundle's
 * content hash, the Node version and architecture, and the command. Undefined when the bundle is
 * absent or stale (a plain `tsc` build; the modules are used then).
 */
export function loadBundle(options: LoadBundleOptions): LoadedBundle | undefined {
	let text: string;
	try {
		if (statSync(options.madeFrom).mtimeMs > statSync(options.path).mtimeMs) return undefined;
		// scripts/bundle-cli.mjs writes it in ASCII: read as a one-byte string, no UTF-8 decoding.
		const bytes = readFileSync(options.path);
		text = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
	} catch {
		return undefined;
	}
	const hash = bundleHash(text);
	const store = hash && options.cacheDirectory ? CodeCacheStore.open(options.cacheDirectory) : undefined;
	const entryName = hash && codeCacheEntryName(hash, options.command);
	const cached = entryName ? store?.read(entryName) : undefined;
	const script = new Script(bundleScriptSource(text), { filename: options.path, cachedData: cached });
	// V8 takes a cache only under the flags it was made with: one made after they changed would be
	// rejected at every next start of this command, so it is not kept.
	const flagsAtCompile = baselineWebAssemblyFlagsSet();
	const module = { exports: {} as CliEntry };
	const run = script.runInThisContext() as (...parameters: unknown[]) => void;
	const importPackage = (specifier: string) => import(specifier);
	const url = pathToFileURL(options.path).href;
	const require = deferringRequire(createRequire(options.path));
	run(module.exports, require, module, options.path, dirname(options.path), url, importPackage);
	let saved = false;
	return {
		entry: module.exports,
		saveCodeCache: () => {
			if (saved || !store || !hash || !entryName || (cached && !script.cachedDataRejected)) return;
			if (baselineWebAssemblyFlagsSet() !== flagsAtCompile) return;
			saved = true;
			try {
				store.write(entryName, script.createCachedData(), hash.slice(0, 32));
			} catch {
				// No cache this time; the next start compiles again.
			}
		},
	};
}

/** The content hash `scripts/bundle-cli.mjs` wrote in the bundle's first line; undefined without one. */
export function bundleHash(text: string): string | undefined {
	return HEADER.exec(text)?.[1];
}

/**
 * The script compiled for the bundle's text: the CommonJS wrapper, plus the names the bundle's
 * code was given for its own URL and for importing the packages it leaves outside (sharp,
 * pdfjs-dist…), as a vm.Script has no import() of its own.
 */
export function bundleScriptSource(text: string): string {
	return `(function (exports, require, module, __filename, __dirname, __toolbeltBundleUrl, __toolbeltImport) {${text}\n})`;
}

/**
 * The cache entry of one bundle (its content hash), Node version, architecture and command: V8
 * itself only checks that the source has the same length, and would run stale code otherwise.
 */
export function codeCacheEntryName(hash: string, command: string): string {
	return `${hash.slice(0, 32)}-${process.version}-${process.arch}-${command}`;
}

/** The code cache folder: `$XDG_CACHE_HOME/toolbelt/v8-code-cache` (an absolute one), else `~/.cache/…`. */
export function codeCacheDirectory(cacheHome: string): string {
	return join(cacheHome, "toolbelt", "v8-code-cache");
}
