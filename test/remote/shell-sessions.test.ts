import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/engine/types.js";
import { createWorkspaceFromUrl, type RemoteWorkspace, workspaceToolsOptions } from "../../src/remote/index.js";
import { createAllTools, type ShellToolDetails } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { dropConnections, until, useSshd } from "./sshd-fixture.js";

// Remote bash runs in shell sessions kept open between calls; each session owns the output files
// it kept and the jobs its commands left running, and removes or kills them itself when its stdin
// ends (the workspace closed, or the connection dropped). The remote side is this machine (loopback
// sshd), so what is left behind is looked at directly on the local disk and process table.

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

	it("a dropped connection: the remote side removes its kept files and stops left-over jobs by itself", async (context) => {
		if (!loopback.sshd) return context.skip();
		const workspace = open(dir());
		const long = await bash(workspace, "seq 1 100000");
		const job = await bash(workspace, "sleep 300 > /dev/null 2>&1 & echo $!");
		const pid = Number(job.text.trim().split("\n")[0]);
		expect(existsSync(long.path ?? "")).toBe(true);
		dropConnections(loopback.sshd);
		expect(await until(() => !existsSync(long.path ?? ""), 10_000)).toBe(true);
		expect(await until(() => !alive(pid), 10_000)).toBe(true);
		// The next call connects again.
		expect((await bash(workspace, "echo again")).text.trim()).toBe("again");
	}, 60_000);
});
