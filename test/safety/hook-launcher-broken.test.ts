import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHookProcess } from "../../src/safety/hooks/hook-process.js";
import { useProgramPath } from "../../src/workspace/local/index.js";
import { pidNamespaceAvailable } from "../../src/workspace/local/process/pid-namespace.js";

// Its own file: vitest runs each file in a fresh process, and the `perl` this process runs is
// chosen once. Here it is one that exits at once, as a Perl launcher that cannot run on a machine
// would, given by path (a `perl` merely first on PATH in a temp folder is never taken).
const brokenPerl = mkdtempSync(join(tmpdir(), "toolbelt-broken-perl-"));
writeFileSync(join(brokenPerl, "perl"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
useProgramPath("perl", join(brokenPerl, "perl"));
const path = process.env.PATH;

describe.skipIf(process.platform !== "linux" || !pidNamespaceAvailable())("a Perl launcher that fails", () => {
	afterAll(() => {
		rmSync(brokenPerl, { recursive: true, force: true });
	});

	it("costs no hook its run: the first is spawned from this process, the later ones go through the shell launcher", async () => {
		const env = { PATH: path ?? "/usr/bin:/bin" };
		for (const round of [1, 2, 3]) {
			const result = await runHookProcess({
				command: `read -r line; echo "ran:$line"`,
				stdin: `${round}\n`,
				cwd: tmpdir(),
				env,
				timeoutMs: 10_000,
			});
			expect(result).toMatchObject({ exitCode: 0, stdout: `ran:${round}\n`, stderr: "" });
			expect(result.spawnError).toBeUndefined();
		}
	});
});
