// The grammars' WebAssembly stays on V8's baseline compiler in every Node the package supports. On
// Node 24 a flag set at run time no longer brings its implications, and the bash grammar's lexer
// was recompiled by the optimising tier: 700 MB and seconds of CPU for one `toolbelt tool bash`.
// V8's own compile trace says which tier compiled each function: no timing is involved.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";

const tempDir = useTempDir();
let binPath = "";
beforeAll(() => {
	binPath = ensureBuiltCli();
});

function runTool(name: string, args: object, nodeOptions: string[] = []) {
	return spawnSync(process.execPath, [...nodeOptions, binPath, "tool", name, JSON.stringify(args)], {
		encoding: "utf8",
		cwd: tempDir(),
		env: cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache") }),
		timeout: 60_000,
	});
}

/** The one code cache entry in `folder` made for `command`: its bytes and when it was written. */
function cacheEntry(folder: string, command: string) {
	const names = readdirSync(folder).filter((name) => name.endsWith(`-${command}.v8cache`));
	expect(names).toHaveLength(1);
	const file = join(folder, names[0]!);
	return { bytes: readFileSync(file), modified: statSync(file).mtimeMs };
}

function tracedTool(name: string, args: object) {
	const result = runTool(name, args, ["--trace-wasm-compilation-times"]);
	const compiled = result.stdout.split("\n").filter((line) => line.startsWith("Compiled function"));
	return { result, compiled, optimised: compiled.filter((line) => line.includes("using TurboFan")) };
}

describe("the grammars' WebAssembly on the baseline compiler", () => {
	it("a bash call judged by the bash grammar compiles nothing with the optimising tier", () => {
		// Enough commands in one call that the lexer is hot: the tier-up happened on the first parse.
		const { result, compiled, optimised } = tracedTool("bash", {
			command: "echo one && echo two | tr a-z A-Z; ls -la . > /dev/null; printf '%s\\n' \"$HOME\" | wc -l",
		});
		expect(result.status, result.stderr).toBe(0);
		expect(compiled.length).toBeGreaterThan(0);
		expect(optimised).toEqual([]);
	}, 60_000);

	it("a write checked by the TypeScript grammar compiles nothing with the optimising tier", () => {
		const { result, compiled, optimised } = tracedTool("write", {
			path: "a.ts",
			content: "export function add(a: number, b: number): number {\n\treturn a + b;\n}\n".repeat(200),
		});
		expect(result.status, result.stderr).toBe(0);
		expect(compiled.length).toBeGreaterThan(0);
		expect(optimised).toEqual([]);
	}, 60_000);

	it("the code cache a bash call leaves is taken by the next start as it is, not made again", () => {
		// V8 rejects a code cache made under other flags. The flags were set when the first command
		// was judged, after the bundle was compiled: the cache saved at exit carried them, and each
		// next start rejected it, compiled the whole bundle again (~360 ms) and wrote it anew.
		const folder = join(tempDir(), "cache", "toolbelt", "v8-code-cache");
		const entry = () => cacheEntry(folder, "tool");
		// Commands the bash grammar reads (a plain command is judged without it: see below).
		expect(runTool("bash", { command: "echo first | cat" }).status).toBe(0);
		const first = entry();
		for (const command of ["echo second | cat", "echo third | cat"]) {
			const result = runTool("bash", { command });
			expect(result.status, result.stderr).toBe(0);
			const now = entry();
			expect(now.modified).toBe(first.modified);
			expect(now.bytes.equals(first.bytes)).toBe(true);
		}
	}, 60_000);

	it("a read starts without the flags, under an entry of its own that its next start takes as it is", () => {
		// The flags cost a one-shot read ~10 ms (loading node:v8); a read's cache is made without them,
		// and a `tool bash` entry beside it (made with them) does not disturb it.
		writeFileSync(join(tempDir(), "a.txt"), "first line\n");
		const folder = join(tempDir(), "cache", "toolbelt", "v8-code-cache");
		const entry = () => cacheEntry(folder, "tool-read");
		expect(runTool("read", { path: "a.txt" }).stdout).toContain("first line");
		const first = entry();
		expect(runTool("bash", { command: "echo between | cat" }).status).toBe(0);
		for (let round = 0; round < 2; round++) {
			const result = runTool("read", { path: "a.txt" });
			expect(result.stdout, result.stderr).toContain("first line");
			const now = entry();
			expect(now.modified).toBe(first.modified);
			expect(now.bytes.equals(first.bytes)).toBe(true);
		}
	}, 60_000);

	it("a plain command starts without the flags, under an entry its next start takes as it is", () => {
		// One program and its plain words is judged without the bash grammar, so its start needs no
		// flags (~10 ms): if the call set them after all, the cache would not be kept, or not taken.
		const folder = join(tempDir(), "cache", "toolbelt", "v8-code-cache");
		const entry = () => cacheEntry(folder, "tool-bash-plain");
		expect(runTool("bash", { command: "echo plain" }).stdout).toBe("plain\n");
		const first = entry();
		expect(runTool("bash", { command: "echo piped | cat" }).stdout).toBe("piped\n");
		for (const command of ["git --version", "printf %s,%s a b"]) {
			const result = runTool("bash", { command });
			expect(result.status, result.stderr).toBe(0);
			const now = entry();
			expect(now.modified).toBe(first.modified);
			expect(now.bytes.equals(first.bytes)).toBe(true);
		}
	}, 60_000);

	it("a command's help starts under an entry of its own, leaving the command's for its first real run", () => {
		// The entry holds what its first run compiled: made by `toolbelt mcp --help`, the MCP
		// server's entry would lack every call's code, and each later session would compile it.
		const folder = join(tempDir(), "cache", "toolbelt", "v8-code-cache");
		const env = cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache") });
		for (const args of [
			["mcp", "--help"],
			["run", "-h"],
			["tool", "read", "--help"],
		]) {
			const result = spawnSync(process.execPath, [binPath, ...args], { encoding: "utf8", cwd: tempDir(), env });
			expect(result.status, result.stderr).toBe(0);
			expect(result.stdout).toContain("Usage: toolbelt");
		}
		const entries = readdirSync(folder);
		expect(entries.filter((name) => name.endsWith("-help.v8cache"))).toHaveLength(1);
		expect(entries.filter((name) => !name.endsWith("-help.v8cache"))).toEqual([]);
	}, 60_000);
});
