// Undo's judge saw `tools/pre-commit`; between that check and the write, `tools/` became a link to
// `.git/hooks` (inside the workspace, so the workspace's own confinement lets it through). The
// restore is confined to the folder that was judged, at the point of use: nothing lands in
// `.git/hooks`, the path is listed as not restored. As root and as an unprivileged user.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, testUsers, userPrefix } from "../helpers/test-users.js";

const run = promisify(execFile);
const dir = useTempDir();
const script = fileURLToPath(new URL("./fixtures/undo-inside-swap.mjs", import.meta.url));

/** What the undo did (the fixture's JSON): whether a hook landed in `.git/hooks`, what it refused and restored. */
interface SwapOutcome {
	hookWritten: boolean;
	refused: string[];
	restored: string[];
}

describe.each(testUsers())("undo through a folder swapped for a link to .git/hooks after the check, as %s", (user) => {
	it("writes no hook there and lists the path as not restored", async () => {
		ensureBuiltCli();
		await handOver(dir(), user);
		const [program = process.execPath, ...args] = [...userPrefix(user), process.execPath];
		const { stdout } = await run(program, [...args, script, dir()], {
			timeout: 60_000,
			env: { ...process.env, HOME: dir() },
		});
		const outcome = JSON.parse(stdout) as SwapOutcome;
		expect(outcome.hookWritten).toBe(false);
		expect(outcome.restored).toEqual([]);
		expect(outcome.refused.join("\n")).toMatch(/tools\/pre-commit: not written: .*outside/);
	}, 90_000);
});
