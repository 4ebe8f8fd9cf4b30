// The sandbox checks each folder it binds (no link on the way), then bwrap mounts it: a folder
// swapped for a link in between (by a background job of an earlier call, in whose mount namespace
// the folder is no mount point) used to be followed, and the folder the link leads to — outside the
// workspace, as root `/etc` — became writable. The prepared call is started right after the swap
// (fixtures/bind-source-swap.mjs), so the gap is hit every time. As root and as an unprivileged user.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, testUsers, userPrefix } from "../helpers/test-users.js";

const run = promisify(execFile);
// Outside /tmp: the sandbox's /tmp is its own, where a link to the outside folder would lead nowhere.
let base = "";
beforeEach(async () => {
	base = await mkdtemp(join("/var/tmp", "toolbelt-bind-swap-"));
});
afterEach(async () => {
	await rm(base, { recursive: true, force: true });
});
const script = fileURLToPath(new URL("./fixtures/bind-source-swap.mjs", import.meta.url));
const unavailable = await sandboxUnavailableReason();

/** What the fixture saw: whether the write landed, the command's status, output and bwrap's words. */
interface SwapOutcome {
	landed: boolean;
	status: number | null;
	stdout: string;
	stderr: string;
	outside: string[];
}

async function swapped(
	user: Parameters<typeof userPrefix>[0],
	where: "pinned" | "protected" | "none",
): Promise<SwapOutcome> {
	ensureBuiltCli();
	await handOver(base, user);
	const [program = process.execPath, ...args] = [...userPrefix(user), process.execPath];
	const { stdout } = await run(program, [...args, script, base, where], {
		timeout: 90_000,
		env: { ...process.env, HOME: base },
	});
	return JSON.parse(stdout) as SwapOutcome;
}

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"a bind source swapped for a link after the check, as %s",
	(user) => {
		it("a pinned folder made a link to a folder outside: nothing is written there, the start is refused", async () => {
			const outcome = await swapped(user, "pinned");
			expect(outcome.landed).toBe(false);
			expect(outcome.outside).toEqual([".git"]);
			expect(outcome.status).not.toBe(0);
			expect(outcome.stderr).toMatch(/race/i);
		}, 120_000);

		it("a protected folder renamed and replaced by a link: the call does not start with it writable under its new name", async () => {
			const outcome = await swapped(user, "protected");
			expect(outcome.landed).toBe(false);
			expect(outcome.status).not.toBe(0);
		}, 120_000);

		it("without a swap the call runs, and the command holds no descriptor of the folders handed to bwrap", async () => {
			const outcome = await swapped(user, "none");
			expect(outcome.stderr).toBe("");
			expect(outcome.status).toBe(0);
			expect(outcome.landed).toBe(true);
			expect(outcome.stdout).not.toContain(base);
		}, 120_000);
	},
);
