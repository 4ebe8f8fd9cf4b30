// The sandbox checks each folder it binds (no link on the way), then bwrap mounts it: a folder
// swapped for a link in between (by a background job of an earlier call, in whose mount namespace
// the folder is no mount point) used to be followed, and the folder the link leads to — outside the
// workspace, as root `/etc` — became writable. The prepared call is started right after the swap
// (fixtures/bind-source-swap.mjs), so the gap is hit every time. As root and as an unprivileged user.
import { describe, expect, it } from "vitest";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { type TestUser, testUsers } from "../helpers/test-users.js";
import { runFixtureAs, useVarTmpBase } from "./fixture-as-user.js";

const base = useVarTmpBase("toolbelt-bind-swap-");
const unavailable = await sandboxUnavailableReason();

/** What the fixture saw: whether the write landed, the command's status, output and bwrap's words. */
interface SwapOutcome {
	landed: boolean;
	status: number | null;
	stdout: string;
	stderr: string;
	outside: string[];
}

function swapped(user: TestUser, where: "pinned" | "protected" | "none"): Promise<SwapOutcome> {
	return runFixtureAs<SwapOutcome>(user, "bind-source-swap", base(), [where]);
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
			expect(outcome.stdout).not.toContain(base());
		}, 120_000);
	},
);
