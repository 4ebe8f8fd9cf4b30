import { chmod, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ripgrepGrepStarter } from "../../../src/workspace/local/search/ripgrep-backend.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { processesGoneFrom, processesIn, writeTree } from "./fixtures.js";
import {
	collectLines,
	grepLines,
	orderedAnswer,
	orderedRequest,
	pathOrderTree,
	symlinkedRipgrep,
} from "./ripgrep-fixtures.js";

const linux = process.platform === "linux";

/**
 * The pair's two ripgreps (the ordered one, and the every-thread one its shell starts when asked)
 * give what directly started ones give. Each test runs a fresh symlink to the bundled ripgrep: the
 * launcher (ready after a process's first searches) never ran it, so the pair is used.
 */
describe.skipIf(!linux)("ripgrep pair: two ripgreps of a search from one process start", () => {
	const dir = useTempDir();
	const request = (pattern: string, literal = true) => orderedRequest(join(dir(), "tree"), pattern, { literal });
	const setUp = async () => {
		await writeTree(join(dir(), "tree"), pathOrderTree(300));
		return symlinkedRipgrep(dir());
	};
	const direct = (rgPath: string, pattern: string) => orderedAnswer(rgPath, request(pattern));

	it("gives the ordered lines, and the every-thread ones once asked, as direct starts do", async () => {
		const rgPath = await setUp();
		const ordered = await direct(rgPath, "hit");
		expect(ordered.length).toBe(302);
		const start = ripgrepGrepStarter(rgPath, request("hit"), undefined, true);
		const signal = new AbortController().signal;
		const first = await start(true, signal);
		expect(await collectLines(first)).toEqual(ordered);
		// The pair was released when the ordered one ended: the every-thread one starts directly.
		const everyThread = await collectLines(await start(false, signal));
		expect([...everyThread].sort((left, right) => (left.path < right.path ? -1 : 1))).toHaveLength(302);
		expect(await processesGoneFrom(join(dir(), "tree"))).toEqual([]);

		// A binary the launcher never ran (it may run one that gave output through a pair).
		const fresh = join(dir(), "rg-fresh");
		await symlink(rgPath, fresh);
		const again = ripgrepGrepStarter(fresh, request("hit"), undefined, true);
		const running = await again(true, signal);
		const names = await Promise.all(
			(await processesIn(join(dir(), "tree"))).map((pid) => readFile(`/proc/${pid}/comm`, "utf8").catch(() => "")),
		);
		expect(names.map((name) => name.trim())).toContain("sh");
		// Asked while the ordered one runs: from the pair's shell.
		const fromPair = await again(false, signal);
		const [orderedLines, everyThreadLines] = await Promise.all([collectLines(running), collectLines(fromPair)]);
		expect(orderedLines).toEqual(ordered);
		expect(new Set(everyThreadLines.map((line) => `${line.path}:${line.lineNumber}`))).toEqual(
			new Set(ordered.map((line) => `${line.path}:${line.lineNumber}`)),
		);
		expect(await processesGoneFrom(join(dir(), "tree"))).toEqual([]);
	});

	it("counts the read calls of the ordered ripgrep the shell started", async () => {
		await setUp();
		// A stand-in that runs until stopped, so that its count can be read.
		const slow = join(dir(), "slow-rg");
		await writeFile(slow, "#!/bin/sh\nexec sleep 30\n");
		await chmod(slow, 0o755);
		const controller = new AbortController();
		const start = ripgrepGrepStarter(slow, request("hit"), undefined, true);
		const ordered = await start(true, controller.signal);
		// Until the stand-in's shell has read its script: asked right after the fork (a loaded
		// machine), the new process has made no read call yet, and counts 0.
		let count: number | undefined;
		for (let attempt = 0; attempt < 200 && !count; attempt++) {
			await new Promise((resolve) => setTimeout(resolve, 10));
			count = ordered.readCalls?.();
		}
		expect(count).toBeGreaterThan(0);
		controller.abort();
		await ordered[Symbol.asyncIterator]()
			.return?.()
			.catch(() => {});
		expect(await processesGoneFrom(join(dir(), "tree"))).toEqual([]);
	});

	it("answers through ripgrepGrep as the every-thread search first does, also a rejected pattern", async () => {
		const rgPath = await setUp();
		for (const pattern of ["hit", "rare", "nothing here"]) {
			expect(await grepLines(rgPath, request(pattern)), pattern).toEqual(await direct(rgPath, pattern));
		}
		const failure = (orderedFirstReads?: number) =>
			grepLines(rgPath, request("(unclosed", false), { orderedFirstReads }).then(
				() => "no error",
				(error: Error) => error.message,
			);
		const paired = await failure();
		expect(paired).toMatch(/ripgrep rejected the search/);
		expect(paired).toBe(await failure(0));
	});

	it("kills both ripgreps and lets the shell go when the search stops early", async () => {
		const rgPath = await setUp();
		const controller = new AbortController();
		const start = ripgrepGrepStarter(rgPath, request("hit"), undefined, true);
		const ordered = await start(true, controller.signal);
		const everyThread = await start(false, controller.signal);
		const iterator = ordered[Symbol.asyncIterator]();
		await iterator.next();
		controller.abort();
		await iterator.return?.();
		await everyThread[Symbol.asyncIterator]()
			.return?.()
			.catch(() => {});
		expect(await processesGoneFrom(join(dir(), "tree"))).toEqual([]);
	});
});
