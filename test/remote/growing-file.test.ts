import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAllTools, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { useSshd } from "./sshd-fixture.js";

// A remote file a process keeps appending to: a read at a far offset counts lines up to the size
// the read began with and says the file is growing, as a local read does (the remote skip measured
// the rest of the file to its end, which the writer stays ahead of). Real sshd.

const loopback = useSshd();
const MB = 1024 * 1024;

function toolsOf(workspace: Workspace) {
	return Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
}

/** Appends 1 MB at a time with a short rest, until killed (so a slow test cannot fill the disk). */
function startWriter(path: string): ChildProcess {
	return spawn("sh", ["-c", 'while :; do yes appended | head -c 1048576; sleep 0.01; done >> "$1"', "sh", path], {
		detached: true,
		stdio: "ignore",
	});
}

/**
 * Grows the file by gigabytes a second, faster than a reader through pipes: 1 MB of lines, then
 * 64 MiB more by extending it (a hole: no disk spent), over and over until killed.
 */
function startFastWriter(path: string): ChildProcess {
	return spawn(
		"sh",
		[
			"-c",
			'while :; do yes appended | head -c 1048576 >> "$1"; truncate -s +64M "$1" || exit; sleep 0.01; done',
			"sh",
			path,
		],
		{ detached: true, stdio: "ignore" },
	);
}

describe("read over ssh of a file that grows while it is read", () => {
	const dir = useTempDir();
	let writer: ChildProcess | undefined;
	afterEach(() => {
		if (writer?.pid && writer.exitCode === null) process.kill(-writer.pid, "SIGKILL");
		writer = undefined;
	});

	it("answers a far offset while the writer runs and names the file as growing", async (context) => {
		if (!loopback.sshd) return context.skip();
		const path = join(dir(), "log.txt");
		execFileSync("sh", ["-c", `yes early | head -c ${64 * MB} > "$1"`, "sh", path]);
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
		});
		loopback.opened.push(remote);
		writer = startWriter(path);
		while ((await stat(path)).size < 66 * MB) await new Promise((resolve) => setTimeout(resolve, 20));
		// The writer may rest through one read on a busy machine: a few tries, each answered while it runs.
		const answers: string[] = [];
		for (let attempt = 0; attempt < 4 && !answers.some((text) => /is growing/.test(text)); attempt++) {
			const result = await runCall(toolsOf(remote), {}, "read", { path: "log.txt", offset: 1_000_000_000 });
			expect(writer.exitCode).toBeNull();
			answers.push(textOf(result));
		}
		expect(answers.find((text) => /is growing/.test(text))).toMatch(
			/offset 1000000000 is beyond the end of log\.txt: the file had \d+ lines when the read began\. It is growing/,
		);
	}, 300_000);

	// The skip counted to the file's end, so a writer faster than the reader kept it reading (here: till
	// the file system's largest file); it now stops at the size the read began with.
	it("answers a far offset while a writer grows the file faster than it can be read", async (context) => {
		if (!loopback.sshd) return context.skip();
		const path = join(dir(), "fast.txt");
		const startLines = 1_000_000;
		execFileSync("sh", ["-c", `yes early | head -n ${startLines} > "$1"`, "sh", path]);
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
		});
		loopback.opened.push(remote);
		// Connected before the writer starts, so the read begins (and takes its size) soon after it.
		await runCall(toolsOf(remote), {}, "read", { path: "fast.txt", limit: 1 });
		writer = startFastWriter(path);
		const result = await runCall(toolsOf(remote), {}, "read", { path: "fast.txt", offset: 1_000_000_000 });
		expect(writer.exitCode).toBeNull();
		const text = textOf(result);
		expect(text).toMatch(
			/offset 1000000000 is beyond the end of fast\.txt: the file had \d+ lines when the read began\. It is growing/,
		);
		expect(Number(/had (\d+) lines/.exec(text)?.[1])).toBeGreaterThanOrEqual(startLines);
	}, 300_000);
});
