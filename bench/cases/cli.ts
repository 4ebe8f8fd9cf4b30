import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchCase } from "../types.js";

const bin = fileURLToPath(new URL("../../dist/cli/bin.js", import.meta.url));

function timeCli(args: string[], expect: (stdout: string) => boolean, cwd?: string) {
	const started = performance.now();
	const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd });
	const ms = performance.now() - started;
	return { ok: result.status === 0 && expect(result.stdout), ms };
}

/** CLI start-up: the built binary against a bare `node` start. */
export const cases: BenchCase[] = [
	{
		group: "cli",
		name: "toolbelt --version (built binary, wall clock)",
		goal: "< 150 ms",
		maxMs: 150,
		repeat: 9,
		toolbelt: async () => timeCli(["--version"], (stdout) => /^\d+\.\d+\.\d+/.test(stdout)),
		baseline: `node -e ""`,
	},
	{
		group: "cli",
		name: "toolbelt tools (loads all 8 tools)",
		goal: "< 1 s",
		maxMs: 1000,
		repeat: 5,
		toolbelt: async () => timeCli(["tools"], (stdout) => stdout.includes("grep")),
		baseline: `node -e ""`,
	},
	{
		group: "cli",
		name: "toolbelt tool read (one small file)",
		goal: "< 1 s",
		maxMs: 1000,
		repeat: 5,
		setup: async ({ dataDir }) => {
			await mkdir(dataDir, { recursive: true });
			await writeFile(join(dataDir, "small.txt"), "hello\n");
		},
		toolbelt: async ({ dataDir }) =>
			timeCli(["tool", "read", '{"path":"small.txt"}'], (stdout) => stdout.includes("hello"), dataDir),
		baseline: "cat small.txt",
	},
];
