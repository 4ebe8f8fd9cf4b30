import { spawnSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleHeader, codeCacheEntryName } from "../../src/cli/startup/bundle-loader.js";
import { CODE_CACHE_SUFFIX, CodeCacheStore } from "../../src/cli/startup/code-cache-store.js";
import { startProfile } from "../../src/cli/startup/start-profile.js";
import { BASELINE_WEBASSEMBLY_FLAGS } from "../../src/syntax/baseline-wasm/index.js";
import { cleanEnv, ensureBuiltBundle, repositoryRoot } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

/**
 * The bundled CLI runs the bytecode it finds in its code cache folder, and V8 checks no more than
 * that the cached script had the same length: an entry planted by another local user would run
 * their code as this user. Only a private folder (0700, this user's, not a symlink) and a private
 * entry (a regular file of this user, writable by no one else) may be used.
 */

const bundlePath = join(repositoryRoot, "dist/cli/toolbelt.cjs");
/** How the `toolbelt tool read` these tests run starts: its cache entry, and the V8 flags it compiles under. */
const readProfile = startProfile(["tool", "read"]);
let planted: Buffer;
let entryName = "";
let entryFile = "";

/** V8's code for a script as long as the bundle's that prints PLANTED, made by a plain `node`. */
function plantedCodeCache(directory: string): Buffer {
	const text = readFileSync(bundlePath, "utf8");
	// A function, as the bundle's script is: the CLI runs what compiling it returns.
	const payload = '(function () { process.stdout.write("PLANTED\\n"); process.exit(0); })';
	// The bundle file is the script the CLI compiles: the planted one has its length.
	const source = payload.padEnd(text.length);
	const sourceFile = join(directory, "planted.js");
	const cacheFile = join(directory, "planted.cache");
	writeFileSync(sourceFile, source);
	// Under the V8 flags the CLI compiles its bundle with: V8 takes a cache made under others for stale.
	const flags = readProfile.baselineWebAssembly ? BASELINE_WEBASSEMBLY_FLAGS : "";
	const maker = `const vm = require("node:vm"); const fs = require("node:fs");
if (${JSON.stringify(flags)}) require("node:v8").setFlagsFromString(${JSON.stringify(flags)});
const script = new vm.Script(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[3] });
script.runInThisContext();
fs.writeFileSync(process.argv[2], script.createCachedData());`;
	const result = spawnSync(process.execPath, ["-e", maker, sourceFile, cacheFile, bundlePath], { encoding: "utf8" });
	expect(result.status, result.stderr).toBe(0);
	return readFileSync(cacheFile);
}

describe("the bundled CLI's code cache", () => {
	const tempDir = useTempDir();

	beforeAll(() => {
		ensureBuiltBundle();
		const hash = bundleHeader(readFileSync(bundlePath, "utf8"))?.hash;
		expect(hash).toBeDefined();
		entryName = codeCacheEntryName(hash!, readProfile.cacheEntry);
		entryFile = entryName + CODE_CACHE_SUFFIX;
	});

	function readSmallFile(cacheHome: string) {
		writeFileSync(join(tempDir(), "a.txt"), "the real file\n");
		return spawnSync(process.execPath, [join(repositoryRoot, "dist/cli/bin.js"), "tool", "read", '{"path":"a.txt"}'], {
			cwd: tempDir(),
			env: cleanEnv({ XDG_CACHE_HOME: cacheHome }),
			encoding: "utf8",
			timeout: 30_000,
		});
	}

	/**
	 * `$XDG_CACHE_HOME/toolbelt/v8-code-cache`, made 0700, with the planted entry in it (0600),
	 * written as the CLI writes its own: the format is no secret.
	 */
	function plantInPrivateFolder(cacheHome: string): string {
		const folder = join(cacheHome, "toolbelt", "v8-code-cache");
		planted ??= plantedCodeCache(tempDir());
		CodeCacheStore.open(folder)?.write(entryName, planted, entryName.split("-")[0]!);
		expect(readdirSync(folder)).toEqual([entryFile]);
		return folder;
	}

	function expectRealResult(result: ReturnType<typeof readSmallFile>) {
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain("the real file");
		expect(result.stdout).not.toContain("PLANTED");
		expect(result.stderr).toBe("");
	}

	it("is written privately: a 0700 folder and 0600 entries, used by the next start", () => {
		const cacheHome = join(tempDir(), "cache");
		expectRealResult(readSmallFile(cacheHome));
		const folder = join(cacheHome, "toolbelt", "v8-code-cache");
		expect(statSync(folder).mode & 0o777).toBe(0o700);
		const entries = readdirSync(folder);
		expect(entries).toEqual([entryFile]);
		expect(statSync(join(folder, entryFile)).mode & 0o777).toBe(0o600);
		expectRealResult(readSmallFile(cacheHome));
	});

	it("runs what a private entry holds (so the planted entry below is a real attack)", () => {
		const cacheHome = join(tempDir(), "cache");
		plantInPrivateFolder(cacheHome);
		expect(readSmallFile(cacheHome).stdout).toContain("PLANTED");
	});

	it("ignores a folder that group or others may write to", () => {
		const cacheHome = join(tempDir(), "cache");
		chmodSync(plantInPrivateFolder(cacheHome), 0o777);
		expectRealResult(readSmallFile(cacheHome));
	});

	it("ignores a folder inside one that others may write to (they could swap it after the check)", () => {
		const cacheHome = join(tempDir(), "cache");
		plantInPrivateFolder(cacheHome);
		chmodSync(join(cacheHome, "toolbelt"), 0o777);
		expectRealResult(readSmallFile(cacheHome));
		// Sticky, as /tmp is: others cannot rename what is ours, so the cache is used.
		chmodSync(join(cacheHome, "toolbelt"), 0o1777);
		expect(readSmallFile(cacheHome).stdout).toContain("PLANTED");
	});

	it("ignores a folder that is a symlink", () => {
		const cacheHome = join(tempDir(), "cache");
		const elsewhere = join(tempDir(), "elsewhere");
		plantInPrivateFolder(elsewhere);
		mkdirSync(join(cacheHome, "toolbelt"), { recursive: true });
		symlinkSync(join(elsewhere, "toolbelt", "v8-code-cache"), join(cacheHome, "toolbelt", "v8-code-cache"));
		expectRealResult(readSmallFile(cacheHome));
	});

	it("ignores an entry that is a symlink, or writable by others", () => {
		const cacheHome = join(tempDir(), "cache");
		const folder = plantInPrivateFolder(cacheHome);
		chmodSync(join(folder, entryFile), 0o666);
		expectRealResult(readSmallFile(cacheHome));

		const linked = join(cacheHome, "linked");
		plantInPrivateFolder(linked);
		const target = join(linked, "toolbelt", "v8-code-cache", entryFile);
		const other = join(tempDir(), "cache-2");
		const otherFolder = join(other, "toolbelt", "v8-code-cache");
		mkdirSync(otherFolder, { recursive: true, mode: 0o700 });
		symlinkSync(target, join(otherFolder, entryFile));
		expectRealResult(readSmallFile(other));
	});

	// Only root can give a file to another user; elsewhere the ownership check cannot be staged.
	it.skipIf(process.getuid?.() !== 0)("ignores a folder or an entry owned by another user", () => {
		const cacheHome = join(tempDir(), "cache");
		const folder = plantInPrivateFolder(cacheHome);
		chownSync(join(folder, entryFile), 65534, 65534);
		expectRealResult(readSmallFile(cacheHome));

		const second = join(tempDir(), "cache-2");
		const secondFolder = plantInPrivateFolder(second);
		chownSync(secondFolder, 65534, 65534);
		expectRealResult(readSmallFile(second));
	});

	it("ignores an entry renamed from another bundle's", () => {
		const cacheHome = join(tempDir(), "cache");
		const folder = join(cacheHome, "toolbelt", "v8-code-cache");
		planted ??= plantedCodeCache(tempDir());
		const otherBundle = entryName.startsWith("f") ? "e".repeat(32) : "f".repeat(32);
		const otherName = otherBundle + entryName.slice(32);
		CodeCacheStore.open(folder)?.write(otherName, planted, otherBundle);
		renameSync(join(folder, otherName + CODE_CACHE_SUFFIX), join(folder, entryFile));
		expectRealResult(readSmallFile(cacheHome));
	});

	it("survives a corrupt entry: the start compiles from source and replaces it", () => {
		const cacheHome = join(tempDir(), "cache");
		const folder = join(cacheHome, "toolbelt", "v8-code-cache");
		mkdirSync(folder, { recursive: true, mode: 0o700 });
		writeFileSync(join(folder, entryFile), Buffer.from("not V8's code at all"), { mode: 0o600 });
		expectRealResult(readSmallFile(cacheHome));
		expect(readFileSync(join(folder, entryFile)).length).toBeGreaterThan(1000);
	});
});
