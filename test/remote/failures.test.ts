import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { dropConnections, until, useSshd } from "./sshd-fixture.js";

const loopback = useSshd();

function open(url: string, sshOptions: string[]): RemoteWorkspace {
	const workspace = createWorkspaceFromUrl(url, { sshOptions });
	loopback.opened.push(workspace);
	return workspace;
}

/** True when a temp file of the target in `dir` holds some but not all of `total` bytes. */
function partFilled(dir: string, total: number): boolean {
	return readdirSync(dir).some((name) => {
		if (!name.startsWith(".big.txt.tmp.")) return false;
		const size = statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0;
		return size > 0 && size < total;
	});
}

/** True when a remote channel's staging file (`/tmp/tmp.*` + `/in`, the remote is this machine) is part-filled. */
function stagingPartFilled(total: number): boolean {
	return readdirSync(tmpdir()).some((name) => {
		if (!name.startsWith("tmp.")) return false;
		const size = statSync(join(tmpdir(), name, "in"), { throwIfNoEntry: false })?.size ?? 0;
		return size > 0 && size < total;
	});
}

describe("ssh failures are clear and lose nothing", () => {
	const dir = useTempDir();

	it("an unreachable host says so, for the model", async (context) => {
		if (!loopback.sshd) return context.skip();
		// A port nothing listens on: connection refused.
		const workspace = open(`ssh://root@127.0.0.1:1${dir()}`, loopback.sshd.sshOptions);
		const tool = createReadTool(workspace.cwd, workspaceToolsOptions(workspace).read);
		const result = await runCall([tool], {}, "read", { path: "x.txt" });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/Cannot reach the SSH workspace ssh:\/\/root@127\.0\.0\.1:1/);
	});

	it("a refused login says which key to check", async (context) => {
		if (!loopback.sshd) return context.skip();
		const otherKey = join(dir(), "other_key");
		execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", otherKey]);
		const options = loopback.sshd.sshOptions.map((option) =>
			option.startsWith("IdentityFile=") ? `IdentityFile=${otherKey}` : option,
		);
		const workspace = open(`${loopback.sshd.urlPrefix}${dir()}`, options);
		await expect(workspace.files.stat(dir())).rejects.toThrow(/refused the login/);
	});

	it("a connection dropped mid-write leaves the old content, no temp file, and the next call reconnects", async (context) => {
		if (!loopback.sshd) return context.skip();
		const target = join(dir(), "big.txt");
		writeFileSync(target, "old content\n");
		const workspace = open(`${loopback.sshd.urlPrefix}${dir()}`, loopback.sshd.sshOptions);
		await workspace.files.stat(target);
		const total = 256 * 1024 * 1024;
		const data = Buffer.alloc(total, 0x61);
		const writing = workspace.files.replaceFile?.(target, data, { mode: 0o644, exactMode: true });
		// Drop while the bytes are on their way: the channel's staging file or the temp file next to the target is part-filled.
		const inTransit = () => partFilled(dir(), total) || stagingPartFilled(total);
		expect(await until(inTransit, 20_000)).toBe(true);
		dropConnections(loopback.sshd);
		await expect(writing).rejects.toThrow();
		// Never a part: the old content, or (had the last byte arrived just before the drop) all of the new.
		const size = statSync(target).size;
		expect(size === 12 ? readFileSync(target, "utf8") : size).toBe(size === 12 ? "old content\n" : total);
		expect(await until(() => !readdirSync(dir()).some((name) => name.startsWith(".big.txt.tmp.")), 10_000)).toBe(true);
		// The next call connects again.
		expect((await workspace.files.stat(target)).size).toBe(size);
		await workspace.files.replaceFile?.(target, Buffer.from("new content\n"), { mode: 0o644, exactMode: true });
		expect(readFileSync(target, "utf8")).toBe("new content\n");
	}, 60_000);
});
