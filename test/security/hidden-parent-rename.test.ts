// A credential location inside a writable path the user named (`~/.local/share/keyrings` under
// `~/.local`) is hidden behind an empty tmpfs. A command renamed the folder above it
// (`~/.local/share`) and the next call found nothing to hide there and read the keys under the new
// name; the folders on the way are now pinned (bound onto themselves), which the kernel will not
// let a rename move. fixtures/hidden-parent-rename.mjs runs both calls; as root and as an
// unprivileged user.
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
const script = fileURLToPath(new URL("./fixtures/hidden-parent-rename.mjs", import.meta.url));
const unavailable = await sandboxUnavailableReason();
let base = "";
beforeEach(async () => {
	base = await mkdtemp(join("/var/tmp", "toolbelt-hidden-rename-"));
});
afterEach(async () => {
	await rm(base, { recursive: true, force: true });
});

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"the folder above a hidden credential location, as %s",
	(user) => {
		it("cannot be renamed to uncover the credentials in the next call", async () => {
			ensureBuiltCli();
			await handOver(base, user);
			const [program = process.execPath, ...args] = [...userPrefix(user), process.execPath];
			const { stdout } = await run(program, [...args, script, base], {
				timeout: 90_000,
				env: { ...process.env, HOME: base },
			});
			const outcome = JSON.parse(stdout) as { renamed: string; read: string };
			expect(outcome.read).not.toContain("the-keyring-secret");
			expect(outcome.renamed).not.toContain("renamed");
		}, 120_000);
	},
);
