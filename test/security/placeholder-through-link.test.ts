// A missing protected path gets an empty placeholder on the host before the call (bwrap needs a
// mount point). A folder on the way that a command turned into a link used to be followed: the
// placeholder was made outside the workspace (as root, anywhere), and removed through the link
// later. fixtures/placeholder-through-link.mjs sets the scene; as root and as an unprivileged user.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { testUsers } from "../helpers/test-users.js";
import { runFixtureAs, useVarTmpBase } from "./fixture-as-user.js";

const unavailable = await sandboxUnavailableReason();
const base = useVarTmpBase("toolbelt-placeholder-link-");

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"a placeholder on the way through a link, as %s",
	(user) => {
		it("is not made outside the workspace; the sandbox refuses and names the link", async () => {
			const outcome = await runFixtureAs<{ outside: string[]; refusal: string }>(
				user,
				"placeholder-through-link",
				base(),
			);
			expect(outcome.outside).toEqual([]);
			expect(outcome.refusal).toContain(join(base(), "workspace", "scripts"));
			expect(outcome.refusal).toMatch(/symbolic link/);
		}, 120_000);
	},
);
