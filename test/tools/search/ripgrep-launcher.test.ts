import { chmod, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createFindTool } from "../../../src/tools/find.js";
import { createGrepTool } from "../../../src/tools/grep.js";
import { ripgrepLaunches } from "../../../src/workspace/local/search/ripgrep-launcher.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { makeFifo, processesGoneFrom, processesIn, releaseFifo, textOf, writeTree } from "./fixtures.js";
import { symlinkedRipgrep } from "./ripgrep-fixtures.js";

const linux = process.platform === "linux";

/**
 * The first search with a binary (a fresh symlink to the bundled ripgrep) starts it directly; the
 * next ones come from the launcher, which the file's first two searches prepared.
 */
describe.skipIf(!linux)("ripgrep through the launcher", () => {
	const dir = useTempDir();

	beforeAll(async () => {
		// A process's first search prepares no launcher; the second does.
		const tool = createGrepTool(process.cwd(), { backend: "ripgrep" });
		await tool.execute("warm-up", { pattern: "ripgrep", path: "package.json" }, undefined);
		await tool.execute("warm-up", { pattern: "ripgrep", path: "package.json" }, undefined);
	});

	it("gives the same results as a directly started ripgrep, for grep and find", async () => {
		await writeTree(dir(), {
			"src/b.ts": "const a = 1;\nneedle here\nafter\n",
			"src/a/deep.ts": "x\ny\nthe needle\n",
			"notes/n.md": "needle in markdown\n",
			".gitignore": "ignored/\n",
			"ignored/x.ts": "needle\n",
			"quote's dir/it's.ts": "needle with 'quotes' and $HOME\n",
			"unicode/naïve.ts": "a naïve 日本 needle\n",
		});
		const rgPath = await symlinkedRipgrep(dir());
		const calls = [
			{ pattern: "needle" },
			{ pattern: "needle", context: 1, include: "*.ts" },
			{ pattern: "'quotes' and $HOME", literal: true },
			{ pattern: "naïve 日本", path: "unicode" },
			{ pattern: "needle", limit: 2 },
			{ pattern: "(unclosed" },
			{ pattern: "nothing matches this" },
		];
		for (const args of calls) {
			// A bad pattern throws (the engine words it as an error result).
			const grep = () =>
				createGrepTool(dir(), { rgPath, backend: "ripgrep" })
					.execute("call", args, undefined)
					.then(textOf, (error: Error) => `error: ${error.message}`);
			const direct = await grep();
			const before = ripgrepLaunches();
			const launched = await grep();
			expect(ripgrepLaunches()).toBeGreaterThan(before);
			expect(launched).toBe(direct);
		}
		const find = () =>
			createFindTool(dir(), { rgPath, backend: "ripgrep" }).execute("call", { pattern: "**/*.ts" }, undefined);
		const before = ripgrepLaunches();
		expect(textOf(await find())).toBe("quote's dir/it's.ts\nsrc/a/deep.ts\nsrc/b.ts\nunicode/naïve.ts");
		expect(ripgrepLaunches()).toBeGreaterThan(before);
	});

	it("runs ripgrep with the environment a direct start gives it (but bash's bookkeeping)", async () => {
		const dumps = join(dir(), "dumps");
		await writeTree(dumps, { ".keep": "" });
		const fake = join(dir(), "fake-rg");
		await writeFile(fake, `#!/bin/sh\nenv > ${JSON.stringify(join(dumps, "env"))}.$$\nexit 1\n`);
		await chmod(fake, 0o755);
		await writeTree(dir(), { "a.txt": "x\n" });
		// One file: one ripgrep per call (a folder without matches is listed again, to say what was skipped).
		const grep = () =>
			createGrepTool(dir(), { rgPath: fake, backend: "ripgrep" }).execute(
				"call",
				{ pattern: "x", path: "a.txt" },
				undefined,
			);
		const readDumps = async () => {
			const names = (await readdir(dumps)).filter((name) => name.startsWith("env."));
			return Promise.all(names.map((name) => readFile(join(dumps, name), "utf8")));
		};
		// bash sets `_` to the command's path.
		const withoutUnderscore = (text: string) =>
			text
				.split("\n")
				.filter((line) => !line.startsWith("_="))
				.sort();
		await grep();
		const [direct, ...others] = await readDumps();
		expect(others).toEqual([]);
		const before = ripgrepLaunches();
		await grep();
		expect(ripgrepLaunches()).toBe(before + 1);
		const dumped = await readDumps();
		expect(dumped).toHaveLength(2);
		for (const text of dumped) expect(withoutUnderscore(text)).toEqual(withoutUnderscore(direct as string));
	});

	it("starts ripgrep directly when the shell could not (same result)", async () => {
		// A binary that exits 127 without output reads, through the launcher, as a failed launch.
		const log = join(dir(), "runs.log");
		const fake = join(dir(), "fails-rg");
		await writeFile(fake, `#!/bin/sh\necho run >> ${JSON.stringify(log)}\nexit 127\n`);
		await chmod(fake, 0o755);
		await writeTree(dir(), { "a.txt": "x\n" });
		const grep = () =>
			createGrepTool(dir(), { rgPath: fake, backend: "ripgrep" }).execute(
				"call",
				{ pattern: "x", path: "a.txt" },
				undefined,
			);
		const runs = async () => (await readFile(log, "utf8")).split("\n").filter(Boolean).length;
		const direct = textOf(await grep());
		expect(await runs()).toBe(1);
		const before = ripgrepLaunches();
		const launched = textOf(await grep());
		expect(ripgrepLaunches()).toBe(before + 1);
		expect(launched).toBe(direct);
		// Through the launcher, then once more directly.
		expect(await runs()).toBe(3);
	});

	it("starts directly again when the environment changed since the launcher started", async () => {
		await writeTree(dir(), { "a.txt": "needle\n" });
		const rgPath = await symlinkedRipgrep(dir());
		// One file: one ripgrep per call (a folder search may start a second one, see path-ordered-grep.ts).
		const grep = () =>
			createGrepTool(dir(), { rgPath, backend: "ripgrep" }).execute(
				"call",
				{ pattern: "needle", path: "a.txt" },
				undefined,
			);
		await grep();
		vi.stubEnv("TOOLBELT_LAUNCHER_TEST", "changed");
		try {
			const before = ripgrepLaunches();
			expect(textOf(await grep())).toMatch(/1: needle/);
			expect(ripgrepLaunches()).toBe(before);
		} finally {
			vi.unstubAllEnvs();
		}
	});

	it("falls back to the walker when the binary is gone, as a direct start does", async () => {
		await writeTree(dir(), { "a.txt": "needle\n" });
		const rgPath = await symlinkedRipgrep(dir());
		const grep = () => createGrepTool(dir(), { rgPath }).execute("call", { pattern: "needle" }, undefined);
		expect((await grep()).details?.backend).toBe("ripgrep");
		await unlink(rgPath);
		const result = await grep();
		expect(result.details?.backend).toBe("walker");
		expect(result.details?.fallbackReason).toMatch(/ripgrep failed to start .*ENOENT/);
		expect(textOf(result)).toBe("a.txt:1: needle");
	});

	it("kills a launched ripgrep that the limit or an abort stopped", async () => {
		await writeTree(dir(), { "a.txt": "hit\n".repeat(200_000) });
		const rgPath = await symlinkedRipgrep(dir());
		const tool = createGrepTool(dir(), { rgPath, backend: "ripgrep" });
		await tool.execute("call", { pattern: "hit", path: "a.txt", limit: 3 }, undefined);
		const before = ripgrepLaunches();
		const limited = await tool.execute("call", { pattern: "hit", path: "a.txt", limit: 3 }, undefined);
		expect(ripgrepLaunches()).toBeGreaterThan(before);
		expect(limited.details).toMatchObject({ matchCount: 3, matchLimitReached: 3 });
		expect(await processesGoneFrom(dir())).toEqual([]);

		// A pipe nobody writes to: ripgrep would wait on it for ever.
		const fifo = join(dir(), "stream.txt");
		makeFifo(fifo);
		const controller = new AbortController();
		const pending = tool.execute("call", { pattern: "hit", path: "stream.txt" }, controller.signal);
		try {
			for (let attempt = 0; attempt < 100 && (await processesIn(dir())).length === 0; attempt++) {
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
			controller.abort();
			await expect(pending).rejects.toThrow(/abort/i);
			expect(await processesGoneFrom(dir())).toEqual([]);
		} finally {
			await releaseFifo(fifo);
		}
	});
});
