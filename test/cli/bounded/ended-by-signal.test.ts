import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxUnavailableReason } from "../../helpers/prerequisites.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { handOver, testUsers } from "../../helpers/test-users.js";
import { eventually } from "../../tools/shell/survivors.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";

const unavailable = await sandboxUnavailableReason();

// Node runs no `exit` handler when a signal ends the process: what toolbelt cleans up at its exit
// must also be cleaned up when a SIGTERM (a CI job's timeout, `kill`) ends it in the middle of a call.
describe.each(testUsers())("toolbelt ended by SIGTERM mid-call, as %s", (user) => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it.skipIf(unavailable !== undefined)(
		"leaves the workspace as it found it: no sandbox placeholder stays",
		async () => {
			const workspace = join(dir(), "workspace");
			const home = join(dir(), "home");
			await mkdir(workspace);
			await mkdir(home);
			await writeFile(join(workspace, "a.txt"), "a");
			await handOver(dir(), user);
			const env = cleanEnv({ HOME: home, XDG_STATE_HOME: join(home, "state") });
			// The sandbox keeps empty folders (.git, .vscode, …) as mount points while it lives.
			const command = "touch started; sleep 30";
			const { child, done } = processes.start(["tool", "bash", JSON.stringify({ command }), "--sandbox"], {
				cwd: workspace,
				env,
				user,
			});
			expect(await eventually(() => existsSync(join(workspace, "started")), 30_000)).toBe(true);
			child.kill("SIGTERM");
			const run = await done;
			expect(run.signal).toBe("SIGTERM");
			expect(readdirSync(workspace).sort()).toEqual(["a.txt", "started"]);
		},
		60_000,
	);

	it("leaves the running command's processes no more alive than toolbelt", async () => {
		const workspace = join(dir(), "workspace");
		await mkdir(workspace);
		await handOver(dir(), user);
		// As root the command runs in a cgroup, removed at toolbelt's end; as a plain user in its own
		// process group, which no terminal's SIGHUP reaches: toolbelt must end it itself.
		const seconds = `30.${process.pid}${Math.floor(Math.random() * 1e6)}`;
		const command = `touch started; sleep ${seconds}; echo never`;
		const { child, done } = processes.start(["tool", "bash", JSON.stringify({ command })], {
			cwd: workspace,
			env: cleanEnv({ HOME: join(dir(), "home") }),
			user,
		});
		expect(await eventually(() => existsSync(join(workspace, "started")), 30_000)).toBe(true);
		child.kill("SIGTERM");
		expect((await done).signal).toBe("SIGTERM");
		const sleeping = () => sleepersOf(seconds);
		expect(await eventually(() => sleeping().length === 0, 5_000), `still running: ${sleeping().join(", ")}`).toBe(
			true,
		);
	}, 60_000);

	it("leaves none of the processes a command keeps forking", async () => {
		const workspace = join(dir(), "workspace");
		await mkdir(workspace);
		await handOver(dir(), user);
		// A fork at any moment: toolbelt's end must not look for the command's processes and kill them
		// one by one (a child forked after the look is missed), but end their whole group at once.
		const seconds = `30.${process.pid}${Math.floor(Math.random() * 1e6)}`;
		const command = `touch started; while :; do sleep ${seconds} & done`;
		const { child, done } = processes.start(["tool", "bash", JSON.stringify({ command })], {
			cwd: workspace,
			env: cleanEnv({ HOME: join(dir(), "home") }),
			user,
		});
		try {
			expect(await eventually(() => existsSync(join(workspace, "started")), 30_000)).toBe(true);
			expect(await eventually(() => sleepersOf(seconds).length > 20, 30_000)).toBe(true);
			child.kill("SIGTERM");
			expect((await done).signal).toBe("SIGTERM");
			const sleeping = () => sleepersOf(seconds);
			expect(await eventually(() => sleeping().length === 0, 5_000), `still running: ${sleeping().length}`).toBe(true);
		} finally {
			for (const pid of sleepersOf(seconds)) process.kill(Number(pid), "SIGKILL");
		}
	}, 60_000);
});

/** Pids of the processes running `sleep SECONDS`. */
function sleepersOf(seconds: string): string[] {
	return readdirSync("/proc")
		.filter((entry) => /^\d+$/.test(entry))
		.filter((pid) => {
			try {
				return readFileSync(`/proc/${pid}/cmdline`, "latin1") === `sleep\0${seconds}\0`;
			} catch {
				return false;
			}
		});
}
