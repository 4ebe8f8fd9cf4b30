import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGrepTool } from "../../../src/tools/grep.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses } from "../helpers/cli-binary.js";

const MB = 1024 * 1024;

/**
 * A process that appends lines to `path` until killed (1 MB at a time, a short rest between, so a
 * slow test cannot fill the disk). Detached: its whole group is killed after the test.
 */
function startWriter(path: string): ChildProcess {
	return spawn("sh", ["-c", 'while :; do yes appended | head -c 1048576; sleep 0.01; done >> "$1"', "sh", path], {
		detached: true,
		stdio: "ignore",
	});
}

async function grown(path: string, bytes: number): Promise<void> {
	while ((await stat(path)).size < bytes) await new Promise((resolve) => setTimeout(resolve, 20));
}

// A file a process keeps appending to never reaches its end: read and grep take the bytes that
// were there when they began and say so, instead of following the writer.
describe("toolbelt tool read and grep on a file that grows while they run", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	let writer: ChildProcess | undefined;
	afterEach(() => {
		processes.killAll();
		if (writer?.pid && writer.exitCode === null) process.kill(-writer.pid, "SIGKILL");
		writer = undefined;
	});

	it("a read at a far offset answers while the writer runs, names the file as growing and the offset to read on from", async () => {
		const path = join(dir(), "log.txt");
		execFileSync("sh", ["-c", `yes early | head -c ${64 * MB} > "$1"`, "sh", path]);
		writer = startWriter(path);
		await grown(path, 66 * MB);
		// The line count is made of the whole file up to where the read began (64 MB or more): it
		// takes long enough for the writer to append, but on a busy machine the writer may wait
		// out one read, so a few tries are allowed; every one must answer while the writer runs.
		const answers: string[] = [];
		for (let attempt = 0; attempt < 4 && !answers.some((text) => /is growing/.test(text)); attempt++) {
			const run = await processes.run(["tool", "read", '{"path": "log.txt", "offset": 1000000000}'], { cwd: dir() });
			expect(writer.exitCode).toBeNull();
			expect(run.code).toBe(1);
			answers.push(run.stderr);
		}
		const growing = answers.find((text) => /is growing/.test(text));
		expect(growing).toMatch(
			/offset 1000000000 is beyond the end of log\.txt: the file had (\d+) lines when the read began\. It is growing \([\d.]+ MB when the read began, [\d.]+ MB when it ended\): lines written since are not counted\. Read again with offset=\d+ for what was appended/,
		);
		const counted = Number(/had (\d+) lines/.exec(growing ?? "")?.[1]);
		// 6 bytes a line ("early\n") for the first 64 MB, 9 ("appended\n") after.
		expect(counted).toBeGreaterThan((64 * MB) / 6 - 1);
		expect(counted).toBeLessThan((await stat(path)).size / 6);
	}, 240_000);

	it("grep over the growing file and its folder answers while the writer runs (ripgrep and the walker)", async () => {
		const path = join(dir(), "log.txt");
		execFileSync("sh", ["-c", `yes early | head -c ${16 * MB} > "$1"`, "sh", path]);
		writer = startWriter(path);
		await grown(path, 18 * MB);
		for (const args of ['{"pattern": "^missing$", "path": "log.txt"}', '{"pattern": "^missing$"}']) {
			const run = await processes.run(["tool", "grep", args], { cwd: dir() });
			expect(writer.exitCode).toBeNull();
			expect(run.stdout).toMatch(/No matches found/);
			expect(run.code).toBe(0);
		}
		// The walker (ripgrep missing) reads a file up to the size it had when opened.
		const grep = createGrepTool(dir(), { backend: "walker" });
		for (const path of ["log.txt", undefined]) {
			const result = await grep.execute("call", { pattern: "^missing$", path }, undefined);
			expect(writer.exitCode).toBeNull();
			expect(result.details?.backend).toBe("walker");
			expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/No matches found/) });
		}
	}, 240_000);
});
