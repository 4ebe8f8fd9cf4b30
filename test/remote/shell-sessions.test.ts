import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
	chownSync,
	existsSync,
	linkSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/engine/types.js";
import { createAllTools, type ShellToolDetails, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { dropConnections, until, useSshd } from "./sshd-fixture.js";

// Remote bash runs in shell sessions kept open between calls; each session owns the output files
// it kept and the jobs its commands left running. It kills the jobs when its stdin ends, and
// removes the files only on an orderly end (the workspace closed): when the connection merely
// dropped, the paths named to the model stay readable, and the workspace removes them at close.
// The remote side is this machine (loopback sshd), so what is left behind is looked at directly
// on the local disk and process table.

const loopback = useSshd();

function open(folder: string): RemoteWorkspace {
	if (!loopback.sshd) throw new Error("loopback.sshd not started");
	const workspace = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${folder}`, {
		sshOptions: loopback.sshd.sshOptions,
	});
	loopback.opened.push(workspace);
	return workspace;
}

async function bash(workspace: RemoteWorkspace, command: string): Promise<{ text: string; path: string | undefined }> {
	const tool = createAllTools(workspace.cwd, workspaceToolsOptions(workspace)).bash;
	const result = (await tool.execute("call", { command }, undefined)) as ToolResult<ShellToolDetails>;
	const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
	return { text, path: result.details?.fullOutputPath };
}

/** The read tool's text for a path there (a failed read throws). */
async function readTool(workspace: RemoteWorkspace, path: string): Promise<string> {
	const tool = createAllTools(workspace.cwd, workspaceToolsOptions(workspace)).read;
	const result = await tool.execute("call", { path }, undefined);
	return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/** The processes (the session's remote shell, its ssh client) whose arguments hold the token of this kept path. */
function sessionProcesses(path: string): number[] {
	const token = /toolbelt-shell\.([0-9a-f]{24})\./.exec(path)?.[1];
	if (!token) return [];
	return readdirSync("/proc")
		.filter((entry) => /^\d+$/.test(entry))
		.filter((pid) => {
			try {
				return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(token);
			} catch {
				return false;
			}
		})
		.map(Number);
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		// A zombie still answers signal 0 until it is reaped: it runs no more.
		return !/^\s*Z/.test(execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }));
	} catch {
		return false;
	}
}

describe("remote bash sessions", () => {
	const dir = useTempDir();

	it("serve call after call in one remote shell; close removes every kept file and stops left-over jobs", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		// The command's parent is the session's shell: the same one for both calls.
		const first = await bash(workspace, "ps -o ppid= -p $$");
		const second = await bash(workspace, "ps -o ppid= -p $$");
		expect(Number(first.text.trim())).toBeGreaterThan(1);
		expect(second.text.trim()).toBe(first.text.trim());
		const long = await bash(workspace, "seq 1 100000");
		const longer = await bash(workspace, "seq 1 200000");
		expect(long.path).toMatch(/toolbelt-shell\./);
		expect(longer.path).not.toBe(long.path);
		expect(existsSync(long.path ?? "")).toBe(true);
		const job = await bash(workspace, "sleep 300 > /dev/null 2>&1 & echo $!");
		const pid = Number(job.text.trim().split("\n")[0]);
		expect(alive(pid)).toBe(true);
		await workspace.close();
		// Nothing is left once close resolved: no waiting for it afterwards.
		expect(existsSync(long.path ?? "")).toBe(false);
		expect(existsSync(longer.path ?? "")).toBe(false);
		expect(await until(() => !alive(pid), 5000)).toBe(true);
	}, 60_000);

	it("calls at the same time each get a session, and close cleans up after all of them", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		const runs = await Promise.all([1, 2, 3].map((n) => bash(workspace, `seq 1 ${n}00000`)));
		const paths = runs.map((run) => run.path ?? "");
		expect(new Set(paths).size).toBe(3);
		for (const [index, run] of runs.entries()) expect(run.text).toContain(`${index + 1}00000`);
		await workspace.close();
		expect(paths.filter((path) => existsSync(path))).toEqual([]);
	}, 60_000);

	it("a command too long for an argument (it arrives on stdin) runs in a session of its own, its file removed at close", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		const run = await bash(workspace, `: '${"x".repeat(150_000)}'\nseq 1 100000`);
		expect(run.text).toContain("100000");
		expect(existsSync(run.path ?? "")).toBe(true);
		// The session the long command used is gone; the next call still works.
		expect((await bash(workspace, "echo next")).text.trim()).toBe("next");
		await workspace.close();
		expect(existsSync(run.path ?? "")).toBe(false);
	}, 60_000);

	it("a dropped connection stops left-over jobs but keeps the kept files: read after the next call, removed at close", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		const long = await bash(workspace, "seq 1 100000");
		const job = await bash(workspace, "sleep 300 > /dev/null 2>&1 & echo $!");
		const pid = Number(job.text.trim().split("\n")[0]);
		expect(existsSync(long.path ?? "")).toBe(true);
		dropConnections(loopback.sshd);
		expect(await until(() => !alive(pid), 10_000)).toBe(true);
		// The next call connects again, and the path named before still holds the whole output.
		expect((await bash(workspace, "echo again")).text.trim()).toBe("again");
		expect(await readTool(workspace, long.path ?? "")).toContain("1999");
		expect(existsSync(long.path ?? "")).toBe(true);
		await workspace.close();
		expect(existsSync(long.path ?? "")).toBe(false);
	}, 60_000);

	it("close removes the kept file of a dropped session also when no call came after the drop", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		const long = await bash(workspace, "seq 1 100000");
		const processes = sessionProcesses(long.path ?? "");
		expect(processes.length).toBeGreaterThan(0);
		dropConnections(loopback.sshd);
		// The remote shell of the session saw its input end (and left its file).
		expect(await until(() => processes.every((pid) => !alive(pid)), 10_000)).toBe(true);
		expect(existsSync(long.path ?? "")).toBe(true);
		await workspace.close();
		expect(existsSync(long.path ?? "")).toBe(false);
	}, 60_000);

	it("toolbelt's exit, which the CLI leaves its workspace to, is an orderly end: the kept file goes", async (context) => {
		if (!loopback.sshd) return context.skip();
		const options = loopback.sshd.sshOptions.flatMap((option) => ["--ssh-option", option]);
		const argv = [ensureBuiltCli(), "tool", "bash", JSON.stringify({ command: "seq 1 100000" })];
		const workspace = ["--workspace", `${loopback.sshd.urlPrefix}${dir()}`, ...options];
		const { stdout } = await promisify(execFile)(process.execPath, [...argv, ...workspace], {
			cwd: "/",
			env: cleanEnv(),
			timeout: 30_000,
		});
		const path = /\/\S*toolbelt-shell\.[0-9a-f]{24}\.\d+/.exec(stdout)?.[0] ?? "";
		expect(path, stdout).not.toBe("");
		expect(await until(() => !existsSync(path), 10_000)).toBe(true);
	}, 60_000);

	it("toolbelt's exit lets the sessions clean up before it stops the connection: a `bye` a second late still arrives", async (context) => {
		if (!loopback.sshd) return context.skip();
		// The real ssh, except that a session's `bye` reaches it a second late (a slow link, a remote
		// side too busy to read it): stopping the connection meanwhile would lose it, and the kept file.
		const wrapper = join(dir(), "bin");
		mkdirSync(wrapper);
		const realSsh = execFileSync("sh", ["-c", "command -v ssh"], { encoding: "utf8" }).trim();
		const slowBye = `#!/usr/bin/env bash
case "$*" in *TOOLBELT_CLEAN*) ;; *) exec ${realSsh} "$@";; esac
exec ${realSsh} "$@" < <(while IFS= read -r line || [ -n "$line" ]; do
	[ "$line" = bye ] && sleep 1
	printf '%s\\n' "$line"
done)
`;
		writeFileSync(join(wrapper, "ssh"), slowBye, { mode: 0o755 });
		const options = loopback.sshd.sshOptions.flatMap((option) => ["--ssh-option", option]);
		const argv = [ensureBuiltCli(), "tool", "bash", JSON.stringify({ command: "seq 1 100000" })];
		const workspace = ["--workspace", `${loopback.sshd.urlPrefix}${dir()}`, ...options];
		const { stdout } = await promisify(execFile)(
			process.execPath,
			[...argv, ...workspace, "--ssh-path", join(wrapper, "ssh")],
			{
				cwd: "/",
				env: cleanEnv({}),
				timeout: 30_000,
			},
		);
		const path = /\/\S*toolbelt-shell\.[0-9a-f]{24}\.\d+/.exec(stdout)?.[0] ?? "";
		expect(path, stdout).not.toBe("");
		// Gone by the time toolbelt has exited: the exit waited for it.
		expect(existsSync(path)).toBe(false);
	}, 60_000);

	it("keeps at most 20 files: the oldest go first, never one that background jobs still write", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		const held = await bash(workspace, "{ sleep 300; echo late; } & seq 1 100000");
		const paths: string[] = [];
		for (let run = 0; run < 22; run++) paths.push((await bash(workspace, `seq ${run} 100000`)).path ?? "");
		expect(new Set(paths).size).toBe(22);
		const existing = () => [held.path ?? "", ...paths].filter((path) => existsSync(path));
		// Removing the oldest needs no answer: it is done in the session right after the call.
		expect(await until(() => existing().length <= 20, 10_000)).toBe(true);
		expect(existing()).toEqual([held.path, ...paths.slice(3)]);
		await workspace.close();
		expect(existing()).toEqual([]);
	}, 120_000);

	it("a new workspace's first session sweeps day-old files of this user's earlier sessions, and only those", async (context) => {
		if (!loopback.sshd) return context.skip();
		const first = open(dir());
		const folder = (await bash(first, `f=$TMPDIR; [ -d "$f" ] || f=/tmp; printf '%s' "$f"`)).text.trim();
		await first.close();
		const name = () => join(folder, `toolbelt-shell.${randomBytes(12).toString("hex")}.1`);
		const dayOld = (path: string, link = false) =>
			execFileSync("touch", [...(link ? ["-h"] : []), "-d", "2 days ago", path]);
		const old = name();
		writeFileSync(old, "left by a session whose connection dropped");
		dayOld(old);
		const young = name();
		writeFileSync(young, "a session of another toolbelt may still name it");
		// Planted by someone else: another user's file, a symlink to a file of ours, a hard link to one.
		const victim = join(folder, `toolbelt-test-victim.${randomBytes(6).toString("hex")}`);
		writeFileSync(victim, "not a kept output");
		dayOld(victim);
		const foreign = name();
		writeFileSync(foreign, "another user's");
		dayOld(foreign);
		const symlink = name();
		symlinkSync(victim, symlink);
		dayOld(symlink, true);
		const hardLink = name();
		linkSync(victim, hardLink);
		const otherUser = process.getuid?.() === 0;
		if (otherUser) chownSync(foreign, 65534, 65534);
		try {
			const second = open(dir());
			expect((await bash(second, "echo swept")).text.trim()).toBe("swept");
			expect(await until(() => !existsSync(old), 10_000)).toBe(true);
			expect(existsSync(young)).toBe(true);
			expect(lstatSync(symlink).isSymbolicLink()).toBe(true);
			expect(existsSync(hardLink)).toBe(true);
			expect(existsSync(victim)).toBe(true);
			// Only root can hand a file to another user; otherwise it is this user's and goes too.
			if (otherUser) expect(existsSync(foreign)).toBe(true);
			await second.close();
		} finally {
			for (const path of [old, young, foreign, symlink, hardLink, victim]) rmSync(path, { force: true });
		}
	}, 60_000);
});
