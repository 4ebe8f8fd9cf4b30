import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { runMcpServer } from "../../../src/mcp/index.js";
import { createBashTool } from "../../../src/tools/bash.js";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { deferredJoinCgroupScript, ownCgroupDirectory } from "../../../src/workspace/local/process/cgroup.js";
import { localeWarmUpScript } from "../../../src/workspace/local/shell/standby-locale.js";
import { standbyShellStarts } from "../../../src/workspace/local/shell/standby-shell.js";
import { createMemoryIO } from "../../cli/helpers/memory-io.js";
import { commandCgroupsUnavailableReason } from "../../helpers/prerequisites.js";
import { openAIStream, useSseServer } from "../../helpers/sse-server.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { runTool } from "./run-tool.js";
import { eventually, killMarked, newMarker, processesWithMarker } from "./survivors.js";

/** The command cgroups of this process (`run-N` below its `toolbelt-PID-…` cgroup). */
function commandCgroups(): string[] {
	const own = ownCgroupDirectory();
	if (own === undefined) return [];
	const bases = readdirSync(own).filter((name) => name.startsWith(`toolbelt-${process.pid}-`));
	return bases.flatMap((base) =>
		readdirSync(join(own, base))
			.filter((name) => name.startsWith("run-"))
			.map((name) => join(own, base, name)),
	);
}

/**
 * Runs `command` and says whether it started from a standby shell. Then lets a turn of the event
 * loop pass, as a model's reply would, in which the next command's standby is started.
 */
async function runCounted(tool: ReturnType<typeof createBashTool>, command: string, timeout?: number) {
	const before = standbyShellStarts();
	const outcome = await runTool(tool, { command, ...(timeout !== undefined ? { timeout } : {}) });
	const fromStandby = standbyShellStarts() > before;
	await new Promise((resolve) => setImmediate(resolve));
	return { ...outcome, fromStandby };
}

/**
 * Counts this process's waiting shells: its children named toolbelt-standby that hold the launch
 * socket (fd 4). As a bash script, so that a command can count them too.
 */
const waitingShellsScript = `n=0; for dir in /proc/[0-9]*; do
  IFS= read -r stat 2>/dev/null < "$dir/stat" || continue
  rest=\${stat##*) }; set -- $rest; [ "$2" = ${process.pid} ] || continue
  mapfile -d '' words 2>/dev/null < "$dir/cmdline" || continue
  [ "\${words[*]: -1}" = toolbelt-standby ] && [ -e "$dir/fd/4" ] && n=$((n + 1))
done; echo "$n"`;

/**
 * How many processes the process group of this process's waiting shell holds (see
 * `waitingShellsScript`): the shell, and its output relay once that started.
 */
const waitingShellGroupScript = `for dir in /proc/[0-9]*; do
  IFS= read -r stat 2>/dev/null < "$dir/stat" || continue
  rest=\${stat##*) }; set -- $rest; [ "$2" = ${process.pid} ] || continue
  mapfile -d '' words 2>/dev/null < "$dir/cmdline" || continue
  [ "\${words[*]: -1}" = toolbelt-standby ] && [ -e "$dir/fd/4" ] || continue
  group=$3; n=0
  for member in /proc/[0-9]*; do
    IFS= read -r stat 2>/dev/null < "$member/stat" || continue
    rest=\${stat##*) }; set -- $rest; [ "$3" = "$group" ] && n=$((n + 1))
  done
  echo "$n"; break
done`;

/** Says so once an output relay is in the command's own cgroup (looked for up to 5 s). */
const relayInOwnCgroup = `own=$(cat /proc/self/cgroup)
for try in $(seq 1 50); do
  for dir in /proc/[0-9]*; do
    [ "$(cat "$dir/cgroup" 2>/dev/null)" = "$own" ] || continue
    tr '\\0' '\\n' < "$dir/cmdline" 2>/dev/null | head -n 1 | grep -qx toolbelt-output-relay && found=1
  done
  [ -n "$found" ] && { echo "the relay is in the cgroup"; break; }
  sleep 0.1
done`;

/** The pids of this process's waiting shells (see `waitingShellsScript`). */
function waitingShellPids(): number[] {
	return readdirSync("/proc")
		.filter((name) => /^\d+$/.test(name))
		.map(Number)
		.filter((pid) => {
			try {
				const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
				const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
				const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
				return parent === process.pid && words.at(-1) === "toolbelt-standby";
			} catch {
				return false;
			}
		});
}

function waitingShells(): number {
	return Number(spawnSync("bash", ["-c", waitingShellsScript], { encoding: "utf8" }).stdout.trim());
}

const markers: string[] = [];
afterEach(async () => {
	await disposeShellProcesses();
	for (const marker of markers.splice(0)) killMarked(marker);
});

describe("the locales a standby shell loads while it waits", () => {
	it("are each locale the environment names, once, plain names only, and it ends with LC_ALL unset", () => {
		const env = { LANG: "en_US.UTF-8", LC_ALL: "C.UTF-8", LC_CTYPE: "en_US.UTF-8", LC_TIME: "POSIX", LC_NAME: "C" };
		expect(localeWarmUpScript(env)).toBe("LC_ALL=en_US.UTF-8; LC_ALL=C.UTF-8; unset LC_ALL");
		// Written into shell text unquoted: anything but a plain name is left out.
		expect(localeWarmUpScript({ LANG: "$(touch x)", LC_MESSAGES: "de_DE.UTF-8 x", LC_PAPER: "" })).toBe("");
		expect(localeWarmUpScript({})).toBe("");
	});
});

// Standby shells exist only where commands run in cgroups; on Linux under CI that must be the case.
const noCgroups = commandCgroupsUnavailableReason();
describe.skipIf(noCgroups !== undefined)("standby shell", () => {
	const tempDir = useTempDir();
	const server = useSseServer();
	const ownCgroup = "cut -d: -f3 /proc/self/cgroup | tail -n 1";

	it("starts the next commands from a shell that joined a fresh cgroup, one per command, removed after the call", async () => {
		const tool = createBashTool(tempDir());
		const seen: string[] = [];
		let fromStandby = 0;
		for (let call = 0; call < 4; call++) {
			// Not the shell's last command: exec'd, setsid would lead the group, fork, and its wait()
			// could reap the relay's short-lived starter, which the command inherits.
			const outcome = await runCounted(tool, `${ownCgroup}; setsid -w env -i sh -c '${ownCgroup}'; :`);
			const [own, escaped] = outcome.text.trim().split("\n");
			expect(own).toMatch(/\/toolbelt-\d+-[0-9a-f]+\/run-\d+$/);
			expect(escaped).toBe(own);
			seen.push(own ?? "");
			if (outcome.fromStandby) fromStandby++;
		}
		// The first commands prepare the standby; from then on each call takes one.
		expect(fromStandby).toBeGreaterThanOrEqual(2);
		expect(new Set(seen).size).toBe(4);
		// Removed when the call returns, or (a process still exiting on a loaded machine) soon after.
		const live = () => commandCgroups().map((path) => path.slice(path.indexOf("/toolbelt-")));
		expect(await eventually(() => seen.every((own) => !live().some((path) => own.endsWith(path))))).toBe(true);
	});

	it("starts the next command's shell once the call's result is out when calls come a model's reply apart", async () => {
		const tool = createBashTool(tempDir());
		await runCounted(tool, "true");
		await runCounted(tool, "true");
		// Started during the command, one held up a short command's result for as long as the fork
		// of this process blocked its event loop.
		await new Promise((resolve) => setTimeout(resolve, 200));
		const during = await runCounted(tool, `sleep 0.3; ${waitingShellsScript}`);
		expect(during.fromStandby).toBe(true);
		expect(during.text).toBe("0");
		expect(await eventually(() => waitingShells() === 1)).toBe(true);
	});

	it("starts the next command's shell while the command runs when calls come one after another", async () => {
		// Calls count as one after another when the next command begins within 50 ms of the last
		// result. A loaded machine can keep this process off the CPU longer than that between two
		// awaits, so the scenario gets three tries: a broken mechanism fails all of them.
		for (let attempt = 1; ; attempt++) {
			const tool = createBashTool(tempDir());
			await runCounted(tool, "true");
			await runCounted(tool, "true");
			// Right after the last result: the fork overlaps this command, and the shell waits (held) to join.
			// Looked for during the command for up to 10 s: on a loaded machine the fork may come late.
			// Held, it has started its relay already (in its process group), so that the next call
			// waits for none of the relay's forks; then both wait for the word to join.
			const during = await runCounted(
				tool,
				`for try in $(seq 1 100); do n=$(${waitingShellsScript}); [ "$n" != 0 ] && break; sleep 0.1; done; echo "$n"
for try in $(seq 1 50); do m=$(${waitingShellGroupScript}); [ "$m" = 2 ] && break; sleep 0.1; done; echo "$m"`,
			);
			// Given the word to join, the held shell's relay joins the cgroup itself, so it ends with the
			// command's cgroup as every relay does.
			const next = await runCounted(tool, `echo next; ${relayInOwnCgroup}`);
			const held = during.fromStandby && during.text.startsWith("1\n") && next.fromStandby;
			if (!held && attempt < 3) {
				await disposeShellProcesses();
				continue;
			}
			expect(during.fromStandby).toBe(true);
			expect(during.text).toBe("1\n2");
			expect(next.fromStandby).toBe(true);
			expect(next.text).toBe("next\nthe relay is in the cgroup");
			break;
		}
	}, 60_000);

	it("starts no shell after its result once shell processes are disposed of", async () => {
		const tool = createBashTool(tempDir());
		await runCounted(tool, "true");
		// A model's reply apart: the next shell is due a turn after this call's result.
		await new Promise((resolve) => setTimeout(resolve, 200));
		await runTool(tool, { command: "true" });
		await disposeShellProcesses();
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(waitingShells()).toBe(0);
	});

	it("gives the command the environment, folder, exit status and merged output a fresh shell gives", async () => {
		const link = join(tempDir(), "link");
		symlinkSync(tempDir(), link);
		const bashEnv = join(tempDir(), "bash-env.sh");
		writeFileSync(bashEnv, "echo sourced-bash-env\n");
		const env = {
			ODD: 'it\'s a "value"\nwith $(no) `expansion` \\ and spaces  ',
			EMPTY: "",
			BASH_ENV: bashEnv,
			PWD: link,
			SHLVL: "4",
		};
		const tool = createBashTool(link, { env });
		const command =
			"env | grep -v '^TOOLBELT_SHELL_RUN=' | sort; printf 'odd=[%s]\\n' \"$ODD\"; echo \"pwd=$(pwd)\"; echo to-stderr >&2; cd /proc/self/fd && echo *; exit 7";
		// A standby waiting in another folder makes the next call here start afresh; that call
		// prepares the standby the one after it starts from.
		const elsewhere = createBashTool(join(tempDir(), ".."));
		for (let call = 0; call < 2; call++) await runCounted(elsewhere, "true");
		const fresh = await runCounted(tool, command);
		const standby = await runCounted(tool, command);
		expect(fresh.fromStandby).toBe(false);
		expect(standby.fromStandby).toBe(true);
		expect(standby?.text).toBe(fresh?.text);
		expect(standby?.isError).toBe(true);
		expect(standby?.text).toContain("sourced-bash-env\n");
		expect(standby?.text).toContain(`odd=[${env.ODD}]\n`);
		expect(standby?.text).toContain(`PWD=${link}\n`);
		expect(standby?.text).toContain(`pwd=${link}\n`);
		expect(standby?.text).toContain("to-stderr");
		expect(standby?.text).toContain("Command exited with code 7");
	});

	it("starts afresh in another folder, or with a variable no shell can set, and the command still gets it", async () => {
		const first = join(tempDir(), "first");
		const second = join(tempDir(), "second");
		spawnSync("mkdir", [first, second]);
		const oddName = { "NOT-A-SHELL-NAME": "kept" };
		const inFirst = createBashTool(first, { env: oddName });
		await runCounted(inFirst, "true");
		await runCounted(inFirst, "true");
		const elsewhere = await runCounted(createBashTool(second), "pwd");
		expect(elsewhere.fromStandby).toBe(false);
		expect(elsewhere.text).toBe(second);
		// The folder of the last call has a standby now; a variable spawn passes but `export` cannot refuses it.
		const odd = await runCounted(createBashTool(second, { env: oddName }), "env | grep '^NOT-A-SHELL-NAME='");
		expect(odd.fromStandby).toBe(false);
		expect(odd.text).toBe("NOT-A-SHELL-NAME=kept");
	});

	it.skipIf(!existsSync("/usr/lib/locale/C.utf8"))(
		"loads the locale this process names while it waits, and hands the command its own",
		async () => {
			const named = process.env.LANG;
			process.env.LANG = "C.UTF-8";
			try {
				const folder = tempDir();
				const tool = createBashTool(folder, { env: { LANG: "C" } });
				// The shell the first command will run in, started as the tool is created.
				const mapsLocale = () =>
					waitingShellPids().some((pid) => {
						try {
							return readFileSync(`/proc/${pid}/maps`, "utf8").includes("/usr/lib/locale/");
						} catch {
							return false;
						}
					});
				expect(await eventually(mapsLocale)).toBe(true);
				// Back in C, LC_ALL unset: a two-byte character is two characters in the command's locale.
				// biome-ignore lint/suspicious/noTemplateCurlyInString: shell expansions, not a template
				const command = 'x=é; echo "${#x} ${LC_ALL-unset} $LANG"';
				const first = await runCounted(tool, command);
				expect(first.fromStandby).toBe(true);
				expect(first.text).toBe("2 unset C");
				const utf8 = createBashTool(folder, { env: { LANG: "C.UTF-8" } });
				const second = await runCounted(utf8, command);
				expect(second.fromStandby).toBe(true);
				expect(second.text).toBe("1 unset C.UTF-8");
			} finally {
				if (named === undefined) delete process.env.LANG;
				else process.env.LANG = named;
			}
		},
	);

	it("starts afresh when its folder was removed and made again at the same path", async () => {
		const folder = join(tempDir(), "again");
		spawnSync("mkdir", [folder]);
		const tool = createBashTool(folder);
		await runCounted(tool, "true");
		await runCounted(tool, "true");
		spawnSync("rm", ["-r", folder]);
		spawnSync("mkdir", [folder]);
		writeFileSync(join(folder, "new.txt"), "");
		const outcome = await runCounted(tool, "ls");
		expect(outcome.fromStandby).toBe(false);
		expect(outcome.text).toBe("new.txt");
	});

	it("kills the whole tree of a command started from a standby when it times out", async () => {
		const tool = createBashTool(tempDir());
		await runCounted(tool, "true");
		await runCounted(tool, "true");
		const { marker, env } = newMarker();
		markers.push(marker);
		const timed = createBashTool(tempDir(), { env });
		const outcome = await runCounted(timed, "sleep 100 & setsid sleep 100 & sleep 100", 1);
		expect(outcome.fromStandby).toBe(true);
		expect(outcome.details.timedOut).toBe(true);
		expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
	});

	// The scan reads every process's command line with bash's own mapfile: a loaded machine runs
	// hundreds of processes, and three programs started per process took this case past 20 s.
	it("takes its launch only from toolbelt: a command cannot slip one into the waiting shell through /proc", {
		timeout: 60_000,
	}, async () => {
		const tool = createBashTool(tempDir());
		await runCounted(tool, "true");
		await runCounted(tool, "true");
		const injected = join(tempDir(), "injected");
		const report = join(tempDir(), "report");
		// The descriptors toolbelt gives a waiting wrapper shell (stdin, 3 and up), written to as a
		// launch would be, by a background job of one command that lies in wait for the standby
		// started after that command's result.
		// Scanned again every half second until a waiting shell is found: on a loaded machine the
		// standby after the result may start later than the first scan.
		const attack = `for try in $(seq 1 40); do sleep 0.5; found=
for dir in /proc/[0-9]*; do
  pid=\${dir#/proc/}; [ "$pid" = "$$" ] && continue
  mapfile -d '' words 2>/dev/null < "$dir/cmdline" || continue
  [ "\${words[*]: -1}" = toolbelt-standby ] || continue
  # Waiting, not a running wrapper's short-lived fork that starts its relay (fd 0 that relay's pipe).
  [ -e "$dir/fd/4" ] || continue
  echo "found a waiting shell"
  for fd in "$dir"/fd/0 "$dir"/fd/[3-9]; do
    [ -e "$fd" ] || continue
    printf '9\\ntouch %s\\n' '${injected}' 2>/dev/null > "$fd" && echo "wrote $fd"
  done
  found=1
done
[ -n "$found" ] && break
done; echo scanned`;
		writeFileSync(join(tempDir(), "attack.sh"), attack);
		await runCounted(tool, `bash ${join(tempDir(), "attack.sh")} > ${report} 2>&1 &`);
		const reportText = () => (existsSync(report) ? readFileSync(report, "utf8") : "");
		expect(await eventually(() => reportText().endsWith("scanned\n"), 50_000)).toBe(true);
		// Other test files' standbys (the same user's) may be found too: none may take a launch.
		expect(reportText()).toMatch(/^(found a waiting shell\n)+scanned\n$/);
		const next = await runCounted(tool, "echo next");
		expect(next.fromStandby).toBe(true);
		expect(next.text).toBe("next");
		expect(existsSync(injected)).toBe(false);
	});

	it("is started the given time after the tool's creation with prepareAfterMs, not as it is made", async () => {
		expect(waitingShells()).toBe(0);
		const tool = createBashTool(tempDir(), { prepareAfterMs: 300 });
		expect(waitingShells()).toBe(0);
		expect(await eventually(() => waitingShells() === 1, 5_000)).toBe(true);
		const first = await runCounted(tool, "echo ok");
		expect(first).toMatchObject({ text: "ok", fromStandby: true });
	});

	it("is not started by toolbelt's MCP server as it makes its tools, but once its handshake is past", async () => {
		// Nothing comes on stdin: the server made its tools and waits for `initialize`.
		const mcp = await runMcpServer({
			cwd: tempDir(),
			tools: ["bash"],
			stdin: new PassThrough(),
			stdout: new PassThrough(),
		});
		try {
			// Its fork would have held up the answer to `initialize` (and to `tools/list`).
			expect(waitingShells()).toBe(0);
			expect(await eventually(() => waitingShells() === 1, 5_000)).toBe(true);
		} finally {
			await mcp.close();
		}
	});

	it("is not started by toolbelt run before the model's first request is out, but while its reply comes", async () => {
		const flags = ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "test-model"];
		const argv = ["run", ...flags, "--tools", "bash,read", "--no-record", "hello"];
		// A first run loads the CLI's modules (seconds, compiled as this suite imports them), so that
		// the run below reaches its request in a time like the built CLI's.
		server.push({ events: openAIStream([{ text: "Warm." }, { finish: "stop" }]) });
		expect(await main(argv, createMemoryIO({ cwd: tempDir() }).io)).toBe(0);
		await disposeShellProcesses();
		// A reply that takes 2 s: the shell starts in it, for a call it might ask for.
		server.push({ events: openAIStream([{ text: "Nothing to run." }, { finish: "stop" }]), eventDelayMs: 1_000 });
		const { io, stdout } = createMemoryIO({ cwd: tempDir() });
		expect(waitingShells()).toBe(0);
		const startedAt = performance.now();
		const run = main(argv, io);
		while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
		// The tools were made after `startedAt`: their shell may start 500 ms after that at the soonest.
		if (performance.now() - startedAt < 500) expect(waitingShells()).toBe(0);
		expect(await eventually(() => waitingShells() === 1, 5_000)).toBe(true);
		expect(server.requests).toHaveLength(2);
		expect(await run).toBe(0);
		expect(stdout()).toBe("Nothing to run.\n");
	});

	it("ends a waiting standby and removes its cgroup on disposal", async () => {
		const tool = createBashTool(tempDir());
		await runCounted(tool, "true");
		await runCounted(tool, "true");
		const members = (path: string) => {
			try {
				return readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
			} catch {
				return [];
			}
		};
		// The standby joins its cgroup a moment after the call that started it (an RCU wait).
		expect(await eventually(() => commandCgroups().some((path) => members(path).length > 0), 10_000)).toBe(true);
		const waiting = commandCgroups();
		await disposeShellProcesses();
		expect(await eventually(() => waiting.every((path) => !existsSync(path)))).toBe(true);
	});

	it("refuses the command, once its output is read, when the standby could not join its cgroup", () => {
		const { join: joinLine, refuseUnlessJoined } = deferredJoinCgroupScript(join(tempDir(), "no-such-cgroup"));
		const script = `${joinLine}\necho before-the-command-output-is-set-up >/dev/null\n${refuseUnlessJoined}\necho ran`;
		const result = spawnSync("/bin/bash", ["-c", script], { encoding: "utf8" });
		expect(result.status).toBe(125);
		expect(result.stdout).toBe("");
		expect(result.stderr).toContain("could not move the command into its cgroup, so it was not run");
	});
});
