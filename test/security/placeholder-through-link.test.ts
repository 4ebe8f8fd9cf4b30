// A missing protected path gets an empty placeholder on the host before the call (bwrap needs a
// mount point). A folder on the way that a command turned into a link used to be followed: the
// placeholder was made outside the workspace (as root, anywhere), and removed through the link
// later. fixtures/placeholder-through-link.mjs sets the scene; as root and as an unprivileged user.
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
const script = fileURLToPath(new URL("./fixtures/placeholder-through-link.mjs", import.meta.url));
const unavailable = await sandboxUnavailableReason();
let base = "";
beforeEach(async () => {
	base = await mkdtemp(join("/var/tmp", "toolbelt-placeholder-link-"));
});
afterEach(async () => {
	await rm(base, { recursive: true, force: true });
});

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"a placeholder on the way through a link, as %s",
	(user) => {
		it("is not made outside the workspace; the sandbox refuses and names the link", async () => {
			ensureBuiltCli();
			await handOver(base, user);
			const [program = process.execPath, ...args] = [...userPrefix(user), process.execPath];
			const { stdout } = await run(program, [...args, script, base], {
				timeout: 90_000,
				env: { ...process.env, HOME: base },
			});
			const outcome = JSON.parse(stdout) as { outside: string[]; refusal: string };
			expect(outcome.outside).toEqual([]);
			expect(outcome.refusal).toContain(join(base, "workspace", "scripts"));
			expect(outcome.refusal).toMatch(/symbolic link/);
		}, 120_000);
	},
);
