import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createAllTools, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { useSshd } from "./sshd-fixture.js";

// A remote file a process keeps appending to: a read at a far offset counts lines up to the size
// the read began with and says the file is growing, as a local read does (the remote skip measured
// the rest of the file to its end, which the writer stays ahead of). Real sshd.

const MB = 1024 * 1024;

/**
 * A stand-in for grep, first on the remote sessions' PATH (sshd's SetEnv), that runs the real one.
 * Armed (a file `armed` beside it), the first grep reading `target` on its stdin (the skip's one
 * pass: the size was taken already) first starts a writer that extends the file by 1 GiB at a time
 * (holes: no disk spent) as fast as it can, and waits until the file has grown: so the writer
 * starts between the skip's size and its pass, whatever the timing. The writer's process group id
 * goes to `writer.pid`.
 */
const standIn = mkdtempSync(join(tmpdir(), "toolbelt-"));
const realGrep = execFileSync("sh", ["-c", "command -v grep"], { encoding: "utf8" }).trim();
writeFileSync(
	join(standIn, "grep"),
	`#!/bin/sh
d='${standIn}'
if [ -e "$d/armed" ] && [ /proc/self/fd/0 -ef "$d/target" ] && rm "$d/armed" 2>/dev/null; then
	size=$(stat -L -c %s "$d/target")
	setsid sh -c 'echo $$ > "$1/writer.pid"; while truncate -s +1G "$1/target"; do :; done' sh "$d" < /dev/null > /dev/null 2>&1 &
	while [ "$(stat -L -c %s "$d/target")" -le "$size" ]; do :; done
fi
exec '${realGrep}' "$@"
`,
);
chmodSync(join(standIn, "grep"), 0o755);
afterAll(() => rmSync(standIn, { recursive: true, force: true }));

const loopback = useSshd({ environment: { PATH: `${standIn}:${process.env.PATH ?? "/usr/bin:/bin"}` } });

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
		const standInWriter = join(standIn, "writer.pid");
		if (existsSync(standInWriter)) {
			// Empty while the writer is starting: Number("") is 0, and a kill of group 0 is this run's own.
			const group = readFileSync(standInWriter, "utf8").trim();
			try {
				if (/^[1-9]\d*$/.test(group)) process.kill(-Number(group), "SIGKILL");
			} catch {
				// It stopped by itself (the file system's largest file).
			}
			rmSync(standInWriter);
		}
		rmSync(join(standIn, "armed"), { force: true });
		rmSync(join(standIn, "target"), { force: true });
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

	// The one-pass skip (grep -m leaving the file just past the lines) reads on to the end when the
	// lines run short. A writer that starts after the skip took the size kept it reading (before: for
	// as long as the writer grew the file, here up to the file system's largest file); now the pass
	// has a time of its own and the bounded count answers after it. The stand-in grep starts the
	// writer at that very point, so the case does not depend on timing.
	it("answers a far offset when a fast writer starts between the skip's size and its pass", async (context) => {
		if (!loopback.sshd) return context.skip();
		const path = join(dir(), "raced.txt");
		const startLines = 1_000_000;
		execFileSync("sh", ["-c", `yes early | head -n ${startLines} > "$1"`, "sh", path]);
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
		});
		loopback.opened.push(remote);
		symlinkSync(path, join(standIn, "target"));
		writeFileSync(join(standIn, "armed"), "");
		const result = await runCall(toolsOf(remote), {}, "read", { path: "raced.txt", offset: 1_000_000_000 });
		// The writer started inside the skip's pass, and still runs: the answer did not wait for it.
		expect(existsSync(join(standIn, "armed"))).toBe(false);
		const writerGroup = Number(readFileSync(join(standIn, "writer.pid"), "utf8"));
		expect(() => process.kill(-writerGroup, 0)).not.toThrow();
		expect(textOf(result)).toMatch(
			new RegExp(
				`offset 1000000000 is beyond the end of raced\\.txt: the file had ${startLines} lines when the read began\\. It is growing`,
			),
		);
	}, 300_000);
});
