import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";
import { baselineWebAssemblyFlagsSet } from "../../syntax/baseline-wasm/index.js";
import type { CliIO, ProcessIO } from "../io.js";
import { CodeCacheStore } from "./code-cache-store.js";
import { deferringRequire } from "./deferred-require.js";

/** What `bin.ts` runs: the bundle's exports (`src/cli/bundle-entry.ts`). */
export interface CliEntry {
	/** The command line (`main.ts`). */
	main: (argv: string[], io: CliIO) => Promise<number>;
	/** The process as a `CliIO` (`io.ts`). */
	createProcessIO: () => ProcessIO;
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

// The bundle file's first line (see `bundleFileText`): the hash of the bundled code, and whether
// that code is all ASCII.
const HEADER = /^\/\/ toolbelt-bundle-script sha256=([0-9a-f]{64})( ascii)?\n/;
/** The header line's longest length, in bytes. */
const HEADER_BYTES = 128;

/**
 * Node loads ES modules one file at a time, and before Node 22 keeps none of their compiled code
 * between starts: the CLI's ~180 modules (350 for `mcp`) cost most of its start. The bundle is
 * one CommonJS file, compiled here as a `vm.Script` with V8's code cache, keyed by the bundle's
 * content hash, the Node version and architecture, and the command. Undefined when the bundle is
 * absent, stale (a plain `tsc` build) or of an older build's format: the modules are used then.
 */
export function loadBundle(options: LoadBundleOptions): LoadedBundle | undefined {
	let text: string;
	let hash: string;
	try {
		if (statSync(options.madeFrom).mtimeMs > statSync(options.path).mtimeMs) return undefined;
		const bytes = readFileSync(options.path);
		const header = bundleHeader(bytes.toString("latin1", 0, HEADER_BYTES));
		// Not a bundle this loader can run (one from an older build): the modules are used.
		if (!header) return undefined;
		hash = header.hash;
		// An ASCII bundle (what scripts/bundle-cli.mjs writes) is read as a one-byte string: no UTF-8
		// decoding, and no check of its 2 MB at every start, since the header says so.
		text = bytes.toString(header.ascii ? "latin1" : "utf8");
	} catch {
		return undefined;
	}
	const store = options.cacheDirectory ? CodeCacheStore.open(options.cacheDirectory) : undefined;
	const entryName = codeCacheEntryName(hash, options.command);
	const cached = store?.read(entryName);
	// The file is the script itself: a source put together here would be copied once more by V8
	// (flattened) before it is compiled.
	const script = new Script(text, { filename: options.path, cachedData: cached });
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
			if (saved || !store || (cached && !script.cachedDataRejected)) return;
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

/**
 * What the first line of a bundle file's `text` says (see `bundleFileText`): the content hash of its
 * code and whether that code is ASCII; undefined when it does not start with that line.
 */
export function bundleHeader(text: string): { hash: string; ascii: boolean } | undefined {
	const match = HEADER.exec(text);
	return match?.[1] === undefined ? undefined : { hash: match[1], ascii: match[2] !== undefined };
}

/**
 * The bundle file's text for the bundled `code` (CommonJS) whose SHA-256 is `hash`: a header line,
 * then the script `loadBundle` compiles as it is — a function of the CommonJS names plus the names the
 * code was given for its own URL and for importing the packages it leaves outside (sharp,
 * pdfjs-dist…), as a vm.Script has no import() of its own. `scripts/bundle-cli.mjs` writes it.
 */
export function bundleFileText(code: string, hash: string): string {
	const ascii = /[^\0-\x7f]/.test(code) ? "" : " ascii";
	return `// toolbelt-bundle-script sha256=${hash}${ascii}\n(function (exports, require, module, __filename, __dirname, __toolbeltBundleUrl, __toolbeltImport) {${code}\n})`;
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
