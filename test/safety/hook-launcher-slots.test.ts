import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { launchHook } from "../../src/safety/hooks/hook-launcher.js";
import { unprivilegedIdentity } from "../helpers/test-users.js";

// In a worker of its own (test/schedule/own-worker.json), so the launcher starts here, and its
// start is what clears the slot folders left by processes that are gone.
const hasSharedMemory = process.platform === "linux" && existsSync("/dev/shm");

/** The pid of a process that has ended. */
function endedPid(): number {
	const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
	return Number(child.stdout.trim());
}

describe.skipIf(!hasSharedMemory)("the hook launcher's slot folders", () => {
	const pid = endedPid();
	const own = `/dev/shm/toolbelt-hooks-${pid}-own`;
	const theirs = `/dev/shm/toolbelt-hooks-${pid}-theirs`;
	afterAll(() => {
		for (const folder of [own, theirs]) rmSync(folder, { recursive: true, force: true });
	});

	it("a new launcher removes this user's folders of ended processes, and never another user's (as root too)", async () => {
		mkdirSync(own, { recursive: true });
		const asRoot = process.getuid?.() === 0;
		if (asRoot) {
			mkdirSync(theirs, { recursive: true });
			chownSync(theirs, unprivilegedIdentity.uid, unprivilegedIdentity.gid);
		}
		const hook = await launchHook({
			file: "/bin/true",
			args: [],
			inNamespace: (file, args) => ({ file, args }),
			cwd: tmpdir(),
			env: {},
			stdin: "",
		});
		if (hook) {
			await hook.exit;
			hook.release();
		}
		expect(existsSync(own)).toBe(false);
		if (asRoot) expect(existsSync(theirs)).toBe(true);
	});
});
