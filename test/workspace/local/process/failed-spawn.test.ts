import { spawn } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../../../cli/helpers/cli-binary.js";
import { useTempDir } from "../../../helpers/temp-dir.js";
import { type TestUser, testUsers, userPrefix } from "../../../helpers/test-users.js";

const tempDir = useTempDir();
const fixture = new URL("./fixtures/failed-spawn.mjs", import.meta.url).pathname;

beforeAll(() => {
	// The fixture runs on the built modules.
	ensureBuiltCli();
});

/** Runs the fixture in a process group of its own, as `user`; what it printed and how it ended. */
function runFixture(
	user: TestUser,
	args: string[],
): Promise<{ code: number | null; signal: string | null; out: string }> {
	const [file, ...prefix] = [...userPrefix(user), process.execPath];
	const child = spawn(file ?? process.execPath, [...prefix, fixture, ...args], {
		detached: true,
		stdio: ["ignore", "pipe", "pipe"],
		cwd: tempDir(),
	});
	let out = "";
	child.stdout.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	child.stderr.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, out })));
}

// A child whose spawn failed has no process, but until Node reports the failure (on the next
// tick) its handle is open, and a `kill` then goes to a pid libuv never set: 0 on Node 20, which
// `kill(2)` reads as the caller's own process group (one CI run was ended so, whole, by SIGKILL: a
// standby shell's folder had been removed), or a stray number, any process as root.
describe.each(testUsers())("signalling a child whose spawn failed, as %s", (user) => {
	it("sends nothing", async () => {
		const ended = await runFixture(user, ["child", join(tempDir(), "no-such-program")]);
		expect(ended).toMatchObject({ code: 0, signal: null });
		expect(ended.out).toContain('{"failedSpawns":1,"strayKills":[]}');
	});
});

describe("the next standby shell, its folder gone", () => {
	// Standby shells exist where commands run in cgroups: as root here (the unprivileged user has no
	// cgroup of its own to make them in, so no standby is started for it).
	it("is given up without a signal", async () => {
		const ended = await runFixture("root", ["standby", join(tempDir(), "removed-folder")]);
		expect(ended).toMatchObject({ code: 0, signal: null });
		expect(ended.out).toContain('{"failedSpawns":1,"strayKills":[]}');
	});
});
