import { execFileSync } from "node:child_process";
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";
import { peakMemoryEnv, peakMemoryOf } from "../helpers/peak-memory.js";

const MB = 1024 * 1024;

/** A sparse file of `bytes` zero bytes: no disk or time spent, whatever its size. */
function sparseFile(path: string, bytes: number): void {
	execFileSync("truncate", ["-s", String(bytes), path]);
}

// Files far larger than memory should hold, made sparse so the tests stay fast. The checkpoint
// hook (undo) runs before every write and edit, as for a model's call.
describe("toolbelt tool write and edit on files larger than memory should hold", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	const env = async () => {
		const home = join(dir(), "home");
		await mkdir(home, { recursive: true });
		return cleanEnv({ HOME: home, XDG_STATE_HOME: join(home, "state"), ...peakMemoryEnv() });
	};

	it("writes over a file larger than the checkpoint store keeps without reading it into memory, and undo says its old content was not kept", async () => {
		const project = join(dir(), "project");
		await mkdir(project);
		// 400 MB: over the store's 256 MB, so never held (past 2 GiB reading it whole failed; see `npm run bench`).
		sparseFile(join(project, "big.bin"), 400 * MB);
		const written = await processes.run(["tool", "write", '{"path": "big.bin", "content": "hello"}'], {
			cwd: project,
			env: await env(),
		});
		const { peakBytes, stderr } = peakMemoryOf(written);
		expect(stderr).toBe("");
		expect(written.code).toBe(0);
		expect(await readFile(join(project, "big.bin"), "utf8")).toBe("hello");
		expect(peakBytes).toBeLessThan(250 * MB);

		const undone = await processes.run(["undo"], { cwd: project, env: await env() });
		expect(undone.stdout + undone.stderr).toMatch(
			/big\.bin: its content before the call \(419430400 bytes\) was larger than/,
		);
		expect((await stat(join(project, "big.bin"))).size).toBe(5);
	}, 120_000);

	it("refuses to edit a 1.1 GB file early, without reading it into memory", async () => {
		sparseFile(join(dir(), "huge.txt"), 1100 * MB);
		const run = await processes.run(["tool", "edit", '{"path": "huge.txt", "old_string": "a", "new_string": "b"}'], {
			cwd: dir(),
			env: await env(),
		});
		const { peakBytes, stderr } = peakMemoryOf(run);
		expect(run.code).toBe(1);
		expect(stderr).toMatch(/more than edit loads \(256 MB\)/);
		expect(peakBytes).toBeLessThan(300 * MB);
	}, 120_000);
});
