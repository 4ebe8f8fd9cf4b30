import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleFileText, bundleHeader, loadBundle } from "../../src/cli/startup/bundle-loader.js";
import { useTempDir } from "../helpers/temp-dir.js";

/** A bundle as scripts/bundle-cli.mjs writes it: the hash line, then the CommonJS code as one script. */
function writeBundle(path: string, code: string): void {
	writeFileSync(path, bundleFileText(code, createHash("sha256").update(code).digest("hex")));
}

const code = `exports.main = async () => 7; exports.createProcessIO = () => ({ from: __filename });
exports.childProcess = require("node:child_process");`;

describe("loadBundle", () => {
	const tempDir = useTempDir();

	function paths() {
		const bundle = join(tempDir(), "toolbelt.cjs");
		const madeFrom = join(tempDir(), "bundle-entry.js");
		writeFileSync(madeFrom, "");
		utimesSync(madeFrom, new Date(1_000_000), new Date(1_000_000));
		return { bundle, madeFrom, cache: join(tempDir(), "cache") };
	}

	it("runs the bundle, keeps its compiled code for the next start and leaves it alone then", async () => {
		const { bundle, madeFrom, cache } = paths();
		writeBundle(bundle, code);
		const first = loadBundle({ path: bundle, madeFrom, cacheDirectory: cache, command: "tool" });
		expect(await first?.entry.main([], {} as never)).toBe(7);
		expect(first?.entry.createProcessIO()).toEqual({ from: bundle });
		first?.saveCodeCache();
		const [entry] = readdirSync(cache);
		expect(entry).toMatch(/^[0-9a-f]{32}-v\d+\.\d+\.\d+-\w+-tool\.v8cache$/);
		const written = statSync(join(cache, entry!)).mtimeMs;

		const second = loadBundle({ path: bundle, madeFrom, cacheDirectory: cache, command: "tool" });
		expect(await second?.entry.main([], {} as never)).toBe(7);
		second?.saveCodeCache();
		expect(statSync(join(cache, entry!)).mtimeMs).toBe(written);
	});

	it("gives the bundle a child_process stand-in that works as the real one", () => {
		const { bundle, madeFrom } = paths();
		writeBundle(bundle, code);
		const loaded = loadBundle({ path: bundle, madeFrom, cacheDirectory: undefined, command: "tool" });
		const exports = loaded?.entry as unknown as { childProcess: typeof import("node:child_process") };
		const childProcess = exports.childProcess;
		expect(typeof childProcess.spawnSync).toBe("function");
		expect(childProcess.spawnSync("true").status).toBe(0);
		expect(Object.keys(childProcess)).toContain("execFile");
	});

	it("is not used when absent, or older than tsc's output (a tsc run since the last npm run build)", () => {
		const { bundle, madeFrom } = paths();
		expect(loadBundle({ path: bundle, madeFrom, cacheDirectory: undefined, command: "tool" })).toBeUndefined();
		writeBundle(bundle, code);
		utimesSync(madeFrom, new Date(), new Date(Date.now() + 60_000));
		expect(loadBundle({ path: bundle, madeFrom, cacheDirectory: undefined, command: "tool" })).toBeUndefined();
	});

	it("reads the content hash from the first line only", () => {
		expect(bundleHeader(bundleFileText("code", "a".repeat(64)))).toEqual({ hash: "a".repeat(64), ascii: true });
		expect(bundleHeader(`code\n${bundleFileText("code", "a".repeat(64))}`)).toBeUndefined();
	});

	it("reads an ASCII bundle as one-byte text and any other as UTF-8, as its header says", async () => {
		const { bundle, madeFrom } = paths();
		const text = `exports.main = async () => "été ✓"; exports.createProcessIO = () => ({});`;
		writeBundle(bundle, text);
		expect(readFileSync(bundle, "latin1").split("\n")[0]).not.toMatch(/ascii/);
		const loaded = loadBundle({ path: bundle, madeFrom, cacheDirectory: undefined, command: "tool" });
		expect(await loaded?.entry.main([], {} as never)).toBe("été ✓");
		writeBundle(bundle, code);
		expect(readFileSync(bundle, "latin1").split("\n")[0]).toMatch(/ ascii$/);
	});

	it("is not used when its first line is not this loader's header (a bundle of an older build)", () => {
		const { bundle, madeFrom } = paths();
		writeFileSync(bundle, `// toolbelt-bundle sha256=${"a".repeat(64)}\n${code}`);
		expect(loadBundle({ path: bundle, madeFrom, cacheDirectory: undefined, command: "tool" })).toBeUndefined();
	});
});
