import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runHookProcess } from "../../src/safety/hooks/hook-process.js";
import { type LauncherKind, launcherKind } from "../../src/safety/hooks/launcher-programs.js";
import { pidNamespaceAvailable } from "../../src/workspace/local/process/pid-namespace.js";
import { ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { requiredInCi } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { eventually, processesWithArgument } from "../tools/shell/survivors.js";

// Where hooks get a PID namespace (as root; a plain user spawns them, and none of this applies) and
// /dev/shm holds the launcher's slots. Every case runs through both launchers: Perl where there is a
// `perl`, and the `/bin/sh` one that stands in where there is none (forced here).
const launched = process.platform === "linux" && pidNamespaceAvailable() && existsSync("/dev/shm");
const fixture = fileURLToPath(new URL("./fixtures/run-hook.mjs", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The parent of a live process. */
function parentOf(pid: number): number {
	return Number(readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.split(" ")[1]);
}

/** The live `sleep` processes given `argument` (not the processes that only name it in their own command lines). */
function sleeping(argument: string): number[] {
	return processesWithArgument(`sleep ${argument}`).filter((pid) => {
		try {
			return readFileSync(`/proc/${pid}/comm`, "latin1") === "sleep\n";
		} catch {
			return false;
		}
	});
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

for (const kind of ["perl", "sh"] as const satisfies readonly LauncherKind[]) {
	const forced = kind === "sh" ? "sh" : undefined;
	const withKind = () => {
		if (forced === undefined) delete process.env.TOOLBELT_HOOK_LAUNCHER;
		else process.env.TOOLBELT_HOOK_LAUNCHER = forced;
	};
	withKind();
	// CI's machines have Perl: there its launcher must not be skipped for want of one.
	const available =
		launched && (launcherKind() === kind || requiredInCi(`the ${kind} hook launcher`, "no perl on PATH") === undefined);
	delete process.env.TOOLBELT_HOOK_LAUNCHER;

	describe(`hooks started by the one launcher of a process (${kind})`, () => {
		const tempDir = useTempDir();
		const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
		const run = (command: string, stdin: string, variables: Record<string, string> = env) =>
			runHookProcess({ command, stdin, cwd: tempDir(), env: variables, timeoutMs: 10_000 });
		beforeAll(withKind);
		afterAll(() => {
			delete process.env.TOOLBELT_HOOK_LAUNCHER;
		});

		it.skipIf(!available)(
			"runs a hook in its namespace from the launcher, one launcher for every hook of the process, not from this process",
			async () => {
				const launchers: number[] = [];
				for (const round of [1, 2]) {
					const hook = join(tempDir(), `launched-${round}-${process.pid}.sh`);
					const done = `${hook}.done`;
					// The hook runs until the test has read its ancestry (at most 10 s): a fixed sleep ended
					// before a loaded machine's scan of /proc found it.
					writeFileSync(
						hook,
						`#!/bin/sh\ni=0\nwhile [ ! -e '${done}' ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done\n`,
						{ mode: 0o755 },
					);
					const running = run(hook, "");
					// The shell launcher's hook starts as `unshare … hook`; the Perl one's as the hook itself.
					const first = () => processesWithArgument(kind === "sh" ? `--kill-child ${hook}` : hook)[0];
					expect(await eventually(() => first() !== undefined, 10_000)).toBe(true);
					if (kind === "perl") expect(processesWithArgument(`--kill-child ${hook}`)).toEqual([]);
					// That process ← (the shell launcher's subshell for this hook ←) the launcher ← this process.
					const launcher = kind === "sh" ? parentOf(parentOf(first() ?? 0)) : parentOf(first() ?? 0);
					expect(parentOf(launcher)).toBe(process.pid);
					launchers.push(launcher);
					writeFileSync(done, "");
					expect((await running).exitCode).toBe(0);
				}
				expect(launchers[1]).toBe(launchers[0]);
			},
		);

		it("gives each hook exactly its environment, quotes and newlines included, as a direct spawn does", async () => {
			const variables = { ...env, QUOTED: 'it\'s "here" $HOME `x`', LINES: "a\nb", EMPTY: "" };
			// `env` itself as the hook (one path: no shell between, which would drop a name it cannot hold).
			const launchedHook = await run("/usr/bin/env", "", variables);
			// A name the shell launcher cannot export: that hook is spawned from Node instead.
			const spawned = await run("/usr/bin/env", "", { ...variables, "odd-name": "1" });
			// Beside them: the folder (`PWD`) and the containment's marker, on both paths.
			const lines = (output: string) => output.split("\n").filter((line) => !/^(PWD|TOOLBELT_SHELL_RUN)=/.test(line));
			const expected = (given: Record<string, string>) =>
				lines(
					`${Object.entries(given)
						.map(([name, value]) => `${name}=${value}\n`)
						.join("")}`,
				).sort();
			expect(lines(launchedHook.stdout).sort()).toEqual(expected(variables));
			expect(lines(spawned.stdout).sort()).toEqual(expected({ ...variables, "odd-name": "1" }));
		});

		it("keeps side-by-side hooks apart: each reads its own stdin and answers on its own stdout and stderr", async () => {
			const results = await Promise.all(
				Array.from({ length: 6 }, (_, index) =>
					run(`read -r line; sleep 0.0${index}; echo "out:$line"; echo "err:$line" >&2; exit ${index}`, `${index}\n`),
				),
			);
			results.forEach((result, index) => {
				expect(result).toMatchObject({
					exitCode: index,
					signal: null,
					stdout: `out:${index}\n`,
					stderr: `err:${index}\n`,
				});
			});
		});

		it("keeps the first 1 MiB of a hook's stdout and lets the hook run to its end", async () => {
			const result = await run("head -c 3000000 /dev/zero | tr '\\0' a; echo done >&2", "");
			expect(result).toMatchObject({ exitCode: 0, stderr: "done\n", timedOut: false });
			expect(result.stdout.length).toBeGreaterThanOrEqual(1024 * 1024);
			expect(result.stdout.length).toBeLessThan(2 * 1024 * 1024);
			expect(/^a+$/.test(result.stdout)).toBe(true);
		});

		it("a hook aborted as it starts leaves nothing running and writes nothing", async () => {
			const duration = `20.${process.pid}${Date.now() % 100_000}`;
			const marker = join(tempDir(), "ran");
			for (const delayMs of [0, 5, 20]) {
				const controller = new AbortController();
				setTimeout(() => controller.abort(), delayMs);
				const result = await runHookProcess({
					command: `setsid sleep ${duration} & sleep 0.5; touch ${marker}`,
					stdin: "",
					cwd: tempDir(),
					env,
					timeoutMs: 10_000,
					signal: controller.signal,
				});
				expect(result.aborted).toBe(true);
			}
			await new Promise((resolve) => setTimeout(resolve, 700));
			expect(existsSync(marker)).toBe(false);
			expect(processesWithArgument(`sleep ${duration}`)).toEqual([]);
		});

		it("a hook that outlasts its timeout is ended with everything it started", async () => {
			const duration = `30.${process.pid}${Date.now() % 100_000}`;
			const result = await runHookProcess({
				command: `setsid env -i sleep ${duration} & echo started; sleep ${duration}`,
				stdin: "",
				cwd: tempDir(),
				env,
				timeoutMs: 300,
			});
			expect(result).toMatchObject({ timedOut: true, stdout: "started\n" });
			expect(processesWithArgument(`sleep ${duration}`)).toEqual([]);
		});

		it("reports the exit code the hook's shell gives, exec failures in the shell's words, and a folder that cannot be entered as a start failure", async () => {
			expect(await run("sh -c 'kill -TERM $$'", "")).toMatchObject({ exitCode: 143, signal: null });
			const missing = join(tempDir(), "missing-hook");
			const gone = await run(missing, "");
			expect(gone).toMatchObject({ exitCode: 127, stderr: `${missing}: No such file or directory\n` });
			const entered = await runHookProcess({
				command: "echo never",
				stdin: "",
				cwd: join(tempDir(), "gone"),
				env,
				timeoutMs: 10_000,
			});
			expect(entered.stdout).toBe("");
			expect(entered.spawnError).toBeDefined();
		});

		it.skipIf(!available)(
			"a toolbelt killed with SIGKILL: its launcher ends, and the Perl launcher's running hook with it",
			{ timeout: 40_000 },
			async () => {
				ensureBuiltCli();
				const duration = `40.${process.pid}${Date.now() % 100_000}`;
				const child = spawn(process.execPath, [fixture, `exec sleep ${duration}`], {
					cwd: repositoryRoot,
					env: { ...process.env, ...(forced ? { TOOLBELT_HOOK_LAUNCHER: forced } : {}) },
					stdio: "ignore",
				});
				try {
					expect(await eventually(() => sleeping(duration).length > 0, 30_000)).toBe(true);
					const hook = sleeping(duration)[0] ?? 0;
					// The hook ← (`unshare` ← the subshell, for the shell launcher ←) the launcher.
					const launcher = kind === "sh" ? parentOf(parentOf(parentOf(hook))) : parentOf(hook);
					expect(parentOf(launcher)).toBe(child.pid);
					child.kill("SIGKILL");
					expect(await eventually(() => !alive(launcher), 5_000)).toBe(true);
					if (kind === "perl") expect(await eventually(() => !alive(hook), 5_000)).toBe(true);
				} finally {
					child.kill("SIGKILL");
					for (const pid of sleeping(duration)) process.kill(pid, "SIGKILL");
				}
			},
		);
	});
}
