// A credential location inside a writable path the user named (`~/.local/share/keyrings` under
// `~/.local`) is hidden behind an empty tmpfs. A command renamed the folder above it
// (`~/.local/share`) and the next call found nothing to hide there and read the keys under the new
// name; the folders on the way are now pinned (bound onto themselves), which the kernel will not
// let a rename move. fixtures/hidden-parent-rename.mjs runs both calls; as root and as an
// unprivileged user.
import { describe, expect, it } from "vitest";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { testUsers } from "../helpers/test-users.js";
import { runFixtureAs, useVarTmpBase } from "./fixture-as-user.js";

const unavailable = await sandboxUnavailableReason();
const base = useVarTmpBase("toolbelt-hidden-rename-");

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"the folder above a hidden credential location, as %s",
	(user) => {
		it("cannot be renamed to uncover the credentials in the next call", async () => {
			const outcome = await runFixtureAs<{ renamed: string; read: string }>(user, "hidden-parent-rename", base());
			expect(outcome.read).not.toContain("the-keyring-secret");
			expect(outcome.renamed).not.toContain("renamed");
		}, 120_000);
	},
);
