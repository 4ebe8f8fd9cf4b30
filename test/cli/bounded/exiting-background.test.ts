import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { handOver, testUsers } from "../../helpers/test-users.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";

/**
 * A process that fills 256 MB, says so, and waits: killed, it spends a while tearing its memory
 * down, listed all along (in `/proc`, its cgroup, its process group) though it never runs again —
 * the state a busy machine leaves any exiting process in for a while. (1 GB kept it exiting no
 * longer here, 20-30 ms either way, and took 3.3 s to fill against 0.9 s.)
 */
const bigProgram = `const memory = Buffer.alloc(256 * 1024 * 1024, 1);
process.stdout.write("ready\\n");
setInterval(() => memory[0]++, 1000);
`;

// A command whose last background process is exiting as the command ends must not be reported as
// "Still running in the background": the pid is gone a moment later (as root: the command's
// cgroup; as a plain user: its process group and marker).
describe.each(testUsers())("toolbelt tool bash when a process of the command is exiting as it ends, as %s", (user) => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it("reports no background process, and a real background job still is reported", async () => {
		const workspace = join(dir(), "workspace");
		const home = join(dir(), "home");
		await mkdir(workspace);
		await mkdir(home);
		await writeFile(join(workspace, "big.cjs"), bigProgram);
		await handOver(dir(), user);
		const env = cleanEnv({ HOME: home, XDG_STATE_HOME: join(home, "state") });
		const node = JSON.stringify(process.execPath);
		const command = `${node} big.cjs > ready & pid=$!; until [ -s ready ]; do sleep 0.05; done; kill -9 $pid; rm ready; echo done`;
		const texts: string[] = [];
		for (let round = 0; round < 3; round++) {
			const run = await processes.run(["tool", "bash", JSON.stringify({ command })], { cwd: workspace, env, user });
			expect(run.stderr).toBe("");
			texts.push(run.stdout);
		}
		expect(texts.filter((text) => /Still running in the background/.test(text))).toEqual([]);
		// bash may print its own "Killed" notice for the job before "done", depending on when it
		// reaps it: the command's output is only required to end its run.
		for (const text of texts) expect(text).toMatch(/^done$/m);

		const background = await processes.run(["tool", "bash", JSON.stringify({ command: "sleep 0.5 & echo started" })], {
			cwd: workspace,
			env,
			user,
		});
		expect(background.stdout).toMatch(/Still running in the background: pid \d+/);
	}, 300_000);
});
