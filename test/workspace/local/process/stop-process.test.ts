import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { stopProcess } from "../../../../src/workspace/local/index.js";
import { ensureBuiltCli, repositoryRoot } from "../../../cli/helpers/cli-binary.js";
import { testUsers, userPrefix } from "../../../helpers/test-users.js";

// Run by the user under test, on the built package: a shell that forks without end is stopped,
// and its children are then the same 200 ms later.
const probe = `
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
const { stopProcess } = await import(process.argv[1]);
const childrenOf = (pid) => { try { return readFileSync(\`/proc/\${pid}/task/\${pid}/children\`, "latin1").trim().split(" ").filter(Boolean).sort(); } catch { return []; } };
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const forker = spawn("sh", ["-c", "while :; do sleep 30 & done"], { stdio: "ignore", detached: true });
try {
	for (let waited = 0; childrenOf(forker.pid).length <= 10 && waited < 10_000; waited += 20) await pause(20);
	const stopped = stopProcess(forker.pid);
	const state = readFileSync(\`/proc/\${forker.pid}/stat\`, "latin1").split(") ")[1][0];
	const listed = childrenOf(forker.pid);
	await pause(200);
	console.log(JSON.stringify({ stopped, state, many: listed.length > 10, same: JSON.stringify(childrenOf(forker.pid)) === JSON.stringify(listed) }));
} finally {
	process.kill(-forker.pid, "SIGKILL");
}
`;

describe.each(testUsers())("stopProcess, as %s", (user) => {
	it.skipIf(process.platform !== "linux")(
		"leaves a process that forks without end stopped, with the children it has and no more",
		() => {
			ensureBuiltCli();
			const module = pathToFileURL(`${repositoryRoot}dist/workspace/local/index.js`).href;
			const [file, ...prefix] = [...userPrefix(user), process.execPath];
			const run = spawnSync(file ?? process.execPath, [...prefix, "--input-type=module", "-e", probe, module], {
				encoding: "utf8",
				timeout: 30_000,
			});
			expect(run.stderr).toBe("");
			expect(JSON.parse(run.stdout)).toEqual({ stopped: true, state: "T", many: true, same: true });
		},
		60_000,
	);
});

describe("stopProcess refuses", () => {
	it("an id that names no process toolbelt started, sending nothing", () => {
		expect(stopProcess(0)).toBe(false);
		expect(stopProcess(-1)).toBe(false);
		expect(stopProcess(process.pid)).toBe(false);
	});
});
