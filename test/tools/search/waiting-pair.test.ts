import { spawnSync } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { eventually, isAlive, newMarker, processesWithArgument, processesWithMarker } from "../shell/survivors.js";
import { processesGoneFrom, processesIn, textOf, writeTree } from "./fixtures.js";
import { collectLines, orderedAnswer, orderedRequest, pathOrderTree, symlinkedRipgrep } from "./ripgrep-fixtures.js";

const linux = process.platform === "linux";
const WAITING_MARK = "toolbelt_start";

/** Ids of the waiting pair shells this process started (live children whose script waits for its start line). */
function waitingShells(): number[] {
	return processesWithArgument(WAITING_MARK).filter((pid) => {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
			return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] === String(process.pid);
		} catch {
			return false;
		}
	});
}

/** Waits (up to 5 s) until the process `pid` has ended; true once it has. */
function ended(pid: number): Promise<boolean> {
	return eventually(() => !isAlive(pid), 5_000);
}

/**
 * The shell a grep tool starts as it is created, to run its first path-ordered search (so that the
 * search writes one line instead of forking this process). Its own worker, and the modules loaded
 * afresh for each test: the launcher that a process's later searches use stops a waiting shell from
 * being started at all.
 */
describe.skipIf(!linux)("a ripgrep pair's shell started ahead", () => {
	const dir = useTempDir();
	const tree = () => join(dir(), "tree");
	afterEach(async () => {
		vi.unstubAllEnvs();
		// Shells of modules loaded before (`load`) would wait until this process ends.
		for (const shell of waitingShells()) process.kill(shell, "SIGKILL");
		for (const shell of waitingShells()) await ended(shell);
	});
	let createGrepTool: typeof import("../../../src/tools/grep.js").createGrepTool;
	let createFindTool: typeof import("../../../src/tools/find.js").createFindTool;
	let ripgrepGrepStarter: typeof import("../../../src/workspace/local/search/ripgrep-backend.js").ripgrepGrepStarter;
	let ripgrepGrep: typeof import("../../../src/workspace/local/search/ripgrep-backend.js").ripgrepGrep;
	let prepareRipgrepPair: () => void;
	/** This file's modules loaded afresh: no launcher, no search made yet. */
	const load = async () => {
		vi.resetModules();
		({ createGrepTool } = await import("../../../src/tools/grep.js"));
		({ createFindTool } = await import("../../../src/tools/find.js"));
		({ ripgrepGrepStarter, ripgrepGrep } = await import("../../../src/workspace/local/search/ripgrep-backend.js"));
		({ prepareRipgrepPair } = await import("../../../src/workspace/local/search/ripgrep-pair.js"));
	};
	beforeEach(load);
	const grepLines = async (rgPath: string, request: ReturnType<typeof orderedRequest>) =>
		collectLines(await ripgrepGrep(rgPath, request, new AbortController().signal));

	/** A stand-in ripgrep that runs until stopped, in whose process the search can be seen. */
	const slowRipgrep = async () => {
		const slow = join(dir(), "slow-rg");
		await writeFile(slow, "#!/bin/sh\nexec sleep 30\n");
		await chmod(slow, 0o755);
		return slow;
	};

	/**
	 * Starts a search of the tree (`start`, a stand-in ripgrep that runs until stopped), says which
	 * processes run in the tree once its shell and its ripgrep do, then stops it.
	 */
	const inTreeWhile = async (start: (signal: AbortSignal) => Promise<AsyncIterable<unknown[]>>) => {
		const controller = new AbortController();
		const running = await start(controller.signal);
		let inTree: number[] = [];
		for (let attempt = 0; attempt < 100 && inTree.length < 2; attempt++) {
			await new Promise((resolve) => setTimeout(resolve, 20));
			inTree = await processesIn(tree());
		}
		controller.abort();
		await running[Symbol.asyncIterator]()
			.return?.()
			.catch(() => {});
		expect(await processesGoneFrom(tree())).toEqual([]);
		return inTree;
	};

	/** The processes in the tree while a path-ordered search of it with `rgPath` runs. */
	const runningIn = (rgPath: string, pattern = "hit") =>
		inTreeWhile((signal) => ripgrepGrepStarter(rgPath, orderedRequest(tree(), pattern), undefined, true)(true, signal));

	it("starts one the given time after the tool's creation with prepareAfterMs, not as it is made", async () => {
		createGrepTool(dir(), { backend: "ripgrep", prepareAfterMs: 300 });
		expect(waitingShells()).toEqual([]);
		expect(await eventually(() => waitingShells().length === 1, 5_000)).toBe(true);
	});

	it("starts one as a search tool is created, waiting outside any project on a socket it alone holds", async () => {
		await writeTree(tree(), pathOrderTree(3));
		expect(waitingShells()).toEqual([]);
		createGrepTool(dir(), { backend: "walker" });
		createFindTool(dir(), { backend: "walker" });
		expect(waitingShells()).toEqual([]);

		createGrepTool(dir(), { backend: "ripgrep" });
		const [shell, ...others] = waitingShells();
		expect(others).toEqual([]);
		expect(readlinkSync(`/proc/${shell}/cwd`)).toBe("/");
		// Its start line comes on a socket, which no other process can open through /proc.
		expect(readlinkSync(`/proc/${shell}/fd/0`)).toMatch(/^socket:/);
		createGrepTool(dir(), { backend: "ripgrep" });
		createFindTool(dir(), { backend: "ripgrep" });
		expect(waitingShells()).toEqual([shell]);

		// The first path-ordered search runs in it (it entered the searched folder), and uses it up.
		expect(await runningIn(await slowRipgrep())).toContain(shell);
		expect(await ended(shell as number)).toBe(true);
		expect(waitingShells()).toEqual([]);
	});

	it("gives the answer a pair started for the search gives, through the tool too", async () => {
		await writeTree(tree(), pathOrderTree(300));
		const rgPath = await symlinkedRipgrep(dir());
		const request = orderedRequest(tree(), "hit");
		const fresh = await grepLines(rgPath, request);
		expect(fresh).toEqual(await orderedAnswer(rgPath, request));
		prepareRipgrepPair();
		const [shell, ...others] = waitingShells();
		expect(others).toEqual([]);
		expect(await grepLines(rgPath, request)).toEqual(fresh);
		expect(await ended(shell as number)).toBe(true);

		// Through the tool: its creation starts the shell its first search takes; a changed
		// environment makes the search start its own.
		await load();
		const other = await symlinkedRipgrep(dir());
		const tool = () => createGrepTool(dir(), { rgPath: other, backend: "ripgrep" });
		const freshTool = tool();
		const [unused] = waitingShells();
		vi.stubEnv("TOOLBELT_TEST_CHANGED", "1");
		const started = textOf(await freshTool.execute("c", { pattern: "hit" }, undefined));
		expect(await ended(unused as number)).toBe(true);
		vi.unstubAllEnvs();
		await load();
		const waitingTool = tool();
		const [used, ...more] = waitingShells();
		expect(more).toEqual([]);
		expect(textOf(await waitingTool.execute("c", { pattern: "hit" }, undefined))).toBe(started);
		expect(await ended(used as number)).toBe(true);
	});

	it("hands ripgrep the environment, folder and arguments a pair started for the search does", async () => {
		await writeTree(tree(), pathOrderTree(3));
		// A stand-in that writes what it was started with.
		const out = join(dir(), "seen.txt");
		const seeing = join(dir(), "seeing-rg");
		// Its environment as it was started (`/proc/$$/environ`: the shell sets PWD of its own as it starts).
		await writeFile(
			seeing,
			`#!/bin/sh\n{ pwd; printf '[%s]\\n' "$@"; tr '\\0' '\\n' < /proc/$$/environ | sort; echo ---; } >> '${out}'\n`,
		);
		await chmod(seeing, 0o755);
		vi.stubEnv("PWD", "/somewhere/else");
		vi.stubEnv("OLDPWD", "/before");
		const search = async () => {
			const start = ripgrepGrepStarter(seeing, orderedRequest(tree(), "it's $HOME `x`"), undefined, true);
			await collectLines(await start(true, new AbortController().signal));
		};
		await search();
		prepareRipgrepPair();
		const [shell, ...others] = waitingShells();
		expect(others).toEqual([]);
		await search();
		expect(await ended(shell as number)).toBe(true);
		const [freshRun, waitingRun] = (await readFile(out, "utf8")).split("---\n");
		expect(freshRun).toContain("OLDPWD=/before");
		expect(freshRun).toContain("PWD=/somewhere/else");
		expect(freshRun).toContain("[it's $HOME `x`]");
		expect(waitingRun).toBe(freshRun);
	});

	it("is not used, and ends, when this process's environment changed since it started", async () => {
		await writeTree(tree(), pathOrderTree(3));
		prepareRipgrepPair();
		const [shell] = waitingShells();
		vi.stubEnv("TOOLBELT_TEST_CHANGED", "1");
		expect(await runningIn(await slowRipgrep())).not.toContain(shell);
		expect(await ended(shell as number)).toBe(true);
	});

	it("is not used, and ends, for a search whose words one line cannot carry", async () => {
		await writeTree(tree(), pathOrderTree(3));
		prepareRipgrepPair();
		const [shell] = waitingShells();
		expect(await runningIn(await slowRipgrep(), "two\nlines")).not.toContain(shell);
		expect(await ended(shell as number)).toBe(true);
		// Nor when a variable it sets back holds a newline (stubbed first: the shell starts with it).
		vi.stubEnv("OLDPWD", "/two\nlines");
		prepareRipgrepPair();
		const [second] = waitingShells();
		expect(await runningIn(await slowRipgrep())).not.toContain(second);
		expect(await ended(second as number)).toBe(true);
	});

	it("leaves a search whose folder went away to a direct start, and waits on for the next one", async () => {
		const rgPath = await symlinkedRipgrep(dir());
		const attempt = async (root: string) => {
			try {
				const start = ripgrepGrepStarter(rgPath, orderedRequest(root, "hit"), undefined, true);
				return `lines: ${(await collectLines(await start(true, new AbortController().signal))).length}`;
			} catch (error) {
				return `error: ${(error as NodeJS.ErrnoException).code}`;
			}
		};
		const fresh = await attempt(join(dir(), "gone"));
		expect(fresh).toBe("error: ENOENT");
		prepareRipgrepPair();
		const [shell] = waitingShells();
		expect(await attempt(join(dir(), "gone"))).toBe(fresh);
		expect(waitingShells()).toEqual([shell]);
		await writeTree(tree(), pathOrderTree(3));
		expect(await attempt(tree())).toBe("lines: 5");
		expect(await ended(shell as number)).toBe(true);
	});

	it("starts a search that needs no partner, a file's or a listing's, as ripgrep alone", async () => {
		await writeTree(tree(), pathOrderTree(30));
		const rgPath = await symlinkedRipgrep(dir());
		const fileCall = () => {
			const tool = createGrepTool(tree(), { rgPath, backend: "ripgrep" });
			return () => tool.execute("c", { pattern: "hit", path: "a/x.txt" }, undefined);
		};
		const listCall = () => {
			const tool = createFindTool(tree(), { rgPath, backend: "ripgrep" });
			return () => tool.execute("c", { pattern: "**/*.txt" }, undefined);
		};
		for (const created of [fileCall, listCall]) {
			// Created, then the environment changed: the search starts ripgrep itself.
			let call = created();
			const [unused] = waitingShells();
			vi.stubEnv("TOOLBELT_TEST_CHANGED", "1");
			const started = textOf(await call());
			expect(await ended(unused as number)).toBe(true);
			vi.unstubAllEnvs();
			await load();
			call = created();
			const [shell, ...others] = waitingShells();
			expect(others).toEqual([]);
			expect(textOf(await call())).toBe(started);
			expect(await ended(shell as number)).toBe(true);
			await load();
		}
		// ripgrep alone runs in it: the shell entered the folder and waits for ripgrep's end only.
		prepareRipgrepPair();
		const [shell] = waitingShells();
		const { startRipgrep } = await import("../../../src/workspace/local/search/ripgrep-process.js");
		const { TextLineSplitter } = await import("../../../src/workspace/local/search/line-splitter.js");
		const slow = await slowRipgrep();
		const inTree = await inTreeWhile(async (signal) => {
			const running = await startRipgrep({ rgPath: slow, args: ["x"], cwd: tree(), signal }, new TextLineSplitter(0));
			return running.lines;
		});
		expect(inTree).toContain(shell);
		expect(await ended(shell as number)).toBe(true);
	});

	it("is followed, in the pause after its search, by the launcher the next search comes from", async () => {
		await writeTree(tree(), pathOrderTree(30));
		const rgPath = await symlinkedRipgrep(dir());
		const launcher = await import("../../../src/workspace/local/search/ripgrep-launcher.js");
		const tool = createGrepTool(tree(), { rgPath, backend: "ripgrep" });
		const first = textOf(await tool.execute("c", { pattern: "hit" }, undefined));
		// No search began after it: the launcher starts (a process's first search prepares none as it runs).
		expect(await eventually(() => launcher.launcherRunning())).toBe(true);
		const before = launcher.ripgrepLaunches();
		expect(textOf(await tool.execute("c", { pattern: "hit" }, undefined))).toBe(first);
		expect(launcher.ripgrepLaunches()).toBe(before + 1);
	});

	it("is not followed by the launcher while another ripgrep of the search still runs", async () => {
		await writeTree(tree(), pathOrderTree(3));
		const launcher = await import("../../../src/workspace/local/search/ripgrep-launcher.js");
		const { startRipgrep } = await import("../../../src/workspace/local/search/ripgrep-process.js");
		const { TextLineSplitter } = await import("../../../src/workspace/local/search/line-splitter.js");
		const quick = join(dir(), "quick-rg");
		await writeFile(quick, "#!/bin/sh\necho hit\n");
		await chmod(quick, 0o755);
		// The every-thread ripgrep of a pair, still running when the ordered one has ended.
		const controller = new AbortController();
		const slow = await startRipgrep(
			{ rgPath: await slowRipgrep(), args: ["x"], cwd: tree(), signal: controller.signal, alongside: true },
			new TextLineSplitter(0),
		);
		const ordered = await startRipgrep(
			{ rgPath: quick, args: ["x"], cwd: tree(), signal: new AbortController().signal },
			new TextLineSplitter(0),
		);
		for await (const _ of ordered.lines);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(launcher.launcherRunning()).toBe(false);
		controller.abort();
		await slow.lines[Symbol.asyncIterator]()
			.return?.()
			.catch(() => {});
		expect(await eventually(() => launcher.launcherRunning())).toBe(true);
	});

	it("lets its process exit, and ends with it", async () => {
		const { marker, env } = newMarker();
		const entry = join(process.cwd(), "dist", "bundle", "index.js");
		const script = `const { createTool } = await import(${JSON.stringify(entry)}); createTool("grep", ${JSON.stringify(dir())}); console.log("created");`;
		const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			env: { ...process.env, ...env },
			encoding: "utf8",
			timeout: 20_000,
		});
		expect(child.stdout.trim()).toBe("created");
		expect(child.status).toBe(0);
		// No process with the child's environment is left once it exited (the shell's read ended).
		expect(await eventually(() => processesWithMarker(marker).length === 0, 5_000)).toBe(true);
	});
});
