import { execFile } from "node:child_process";
import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { checkpointDirOf, createCheckpoints, remoteCheckpointFiles } from "../../src/checkpoints/index.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createEditTool, createWriteTool, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { bindMountPrefix, useSshd } from "./sshd-fixture.js";

// Checkpoints of a remote workspace. sshd sees `remote-view/` at the path of `project/` (its own
// mount namespace), so the remote files and a local folder of the same name are different things:
// before-images must come from the remote side, restores must land there, and the local folder
// of that name must stay untouched and keep checkpoints of its own.

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-remote-undo-")));
const project = join(root, "project");
const remoteView = join(root, "remote-view");
const state = join(root, "state");
for (const folder of [project, remoteView, state]) mkdirSync(folder, { recursive: true });
const sshd = useSshd({ launchPrefix: bindMountPrefix(remoteView, project) });
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
	for (const folder of [project, remoteView, state])
		for (const name of readdirSync(folder)) rmSync(join(folder, name), { recursive: true, force: true });
});

function url(): string {
	if (!sshd.sshd) throw new Error("no sshd");
	return `${sshd.sshd.urlPrefix}${project}`;
}

function open(): RemoteWorkspace {
	if (!sshd.sshd) throw new Error("no sshd");
	const workspace = createWorkspaceFromUrl(url(), { sshOptions: sshd.sshd.sshOptions });
	sshd.opened.push(workspace);
	return workspace;
}

/** Every entry below `folder`: mode and content of files, targets of links. */
function tree(folder: string, prefix = ""): Record<string, string> {
	const result: Record<string, string> = {};
	for (const name of readdirSync(join(folder, prefix)).sort()) {
		const path = join(folder, prefix, name);
		const key = prefix ? `${prefix}/${name}` : name;
		const info = lstatSync(path);
		if (info.isSymbolicLink()) result[key] = `link -> ${readlinkSync(path)}`;
		else if (info.isDirectory()) Object.assign(result, tree(folder, key));
		else result[key] = `${(info.mode & 0o7777).toString(8)} ${readFileSync(path).toString("base64")}`;
	}
	return result;
}

/** The remote workspace's tools with its checkpoints recorded, store in `state/`. */
async function setup(maxBytes?: number) {
	const workspace = open();
	const options = workspaceToolsOptions(workspace);
	const tools = [createWriteTool(workspace.cwd, options.write), createEditTool(workspace.cwd, options.edit)];
	const checkpoints = await createCheckpoints({
		workspace: workspace.urlOf(project),
		root: project,
		stateDir: state,
		maxBytes,
		files: remoteCheckpointFiles(workspace),
	});
	let id = 0;
	const call = async (name: string, args: Record<string, unknown>) => {
		const toolCalls: ToolCall[] = [{ type: "toolCall", id: String(++id), name, arguments: args }];
		const { messages } = await executeToolCalls({ tools, toolCalls, ...checkpoints.hooks });
		expect(messages[0]?.isError, JSON.stringify(messages[0]?.content)).toBe(false);
	};
	return { checkpoints, call };
}

function seedRemote(): void {
	writeFileSync(join(remoteView, "run.sh"), "#!/bin/sh\necho hi\n");
	chmodSync(join(remoteView, "run.sh"), 0o755);
	writeFileSync(join(remoteView, "secret.txt"), "private\n");
	chmodSync(join(remoteView, "secret.txt"), 0o600);
	writeFileSync(join(remoteView, "target.txt"), "through a link\n");
	symlinkSync("target.txt", join(remoteView, "link.txt"));
}

describe("checkpoints of a remote workspace (ssh)", () => {
	it("write and edit on the remote, undone turn by turn: content, modes, links, created files removed", async (context) => {
		if (!sshd.sshd) return context.skip();
		seedRemote();
		writeFileSync(join(project, "local-only.txt"), "the local folder of the same name\n");
		const local = tree(project);
		const { checkpoints, call } = await setup();
		const states = [tree(remoteView)];
		await call("write", { path: "new/made.txt", content: "created remotely\n" });
		await call("edit", { path: "run.sh", old_string: "echo hi", new_string: "echo hello" });
		states.push(tree(remoteView));
		checkpoints.startTurn();
		await call("write", { path: "secret.txt", content: "overwritten\n" });
		await call("write", { path: "link.txt", content: "rewritten through the link\n" });
		expect(tree(remoteView)).not.toEqual(states[1]);
		expect(tree(project)).toEqual(local);

		const second = await checkpoints.restore();
		expect(second).toMatchObject({ calls: 2, turns: 1, conflicts: [] });
		expect(tree(remoteView)).toEqual(states[1]);
		const first = await checkpoints.restore();
		expect(first).toMatchObject({ calls: 2, turns: 1, conflicts: [] });
		expect(tree(remoteView)).toEqual(states[0]);
		expect(existsSync(join(remoteView, "new", "made.txt"))).toBe(false);
		expect(tree(project)).toEqual(local);
		expect(await checkpoints.list()).toEqual([]);
	}, 60_000);

	it("refuses when the remote file changed meanwhile, and --force overwrites it", async (context) => {
		if (!sshd.sshd) return context.skip();
		seedRemote();
		const { checkpoints, call } = await setup();
		await call("edit", { path: "run.sh", old_string: "echo hi", new_string: "echo hello" });
		await call("write", { path: "fresh.txt", content: "new\n" });
		// Changed on the remote side only: the local file of that name has other bytes still.
		writeFileSync(join(remoteView, "run.sh"), "#!/bin/sh\necho changed by someone else\n");
		writeFileSync(join(project, "run.sh"), "#!/bin/sh\necho hello\n");
		const refused = await checkpoints.restore();
		expect(refused).toMatchObject({ calls: 0, conflicts: [join(project, "run.sh")] });
		expect(readFileSync(join(remoteView, "run.sh"), "utf8")).toContain("someone else");
		expect(existsSync(join(remoteView, "fresh.txt"))).toBe(true);

		const forced = await checkpoints.restore({ force: true });
		expect(forced).toMatchObject({ calls: 2, conflicts: [join(project, "run.sh")] });
		expect(readFileSync(join(remoteView, "run.sh"), "utf8")).toBe("#!/bin/sh\necho hi\n");
		expect(lstatSync(join(remoteView, "run.sh")).mode & 0o7777).toBe(0o755);
		expect(existsSync(join(remoteView, "fresh.txt"))).toBe(false);
	}, 60_000);

	it("an undo cut off midway runs again without --force: files already back are left as they are", async (context) => {
		if (!sshd.sshd) return context.skip();
		seedRemote();
		const { checkpoints, call } = await setup();
		await call("write", { path: "secret.txt", content: "overwritten\n" });
		await call("write", { path: "fresh.txt", content: "new\n" });
		// As if the first undo had put secret.txt back, then lost the connection.
		writeFileSync(join(remoteView, "secret.txt"), "private\n");
		const again = await checkpoints.restore();
		expect(again).toMatchObject({ calls: 2, conflicts: [] });
		expect(existsSync(join(remoteView, "fresh.txt"))).toBe(false);
		expect(readFileSync(join(remoteView, "secret.txt"), "utf8")).toBe("private\n");
		expect(lstatSync(join(remoteView, "secret.txt")).mode & 0o7777).toBe(0o600);
	}, 60_000);

	it("a mode changed on the remote counts as a change too", async (context) => {
		if (!sshd.sshd) return context.skip();
		seedRemote();
		const { checkpoints, call } = await setup();
		await call("write", { path: "secret.txt", content: "overwritten\n" });
		chmodSync(join(remoteView, "secret.txt"), 0o644);
		expect((await checkpoints.restore()).conflicts).toEqual([join(project, "secret.txt")]);
	}, 60_000);

	it("large remote before-images come back byte for byte, bounded by the store as locally", async (context) => {
		if (!sshd.sshd) return context.skip();
		const big = Buffer.alloc(3 * 2 ** 20);
		for (let index = 0; index < big.length; index++) big[index] = (index * 7919) % 251;
		writeFileSync(join(remoteView, "big.bin"), big);
		// Room for one before-image of this size, not two: the oldest checkpoint goes, as locally.
		const { checkpoints, call } = await setup(4 * 2 ** 20);
		await call("write", { path: "big.bin", content: "small now\n" });
		writeFileSync(join(remoteView, "other.bin"), big.subarray(1));
		await call("write", { path: "other.bin", content: "small too\n" });
		expect((await checkpoints.list()).map((checkpoint) => checkpoint.files[0]?.path)).toEqual([
			join(project, "other.bin"),
		]);
		await checkpoints.restore();
		expect(readFileSync(join(remoteView, "other.bin")).equals(big.subarray(1))).toBe(true);
		expect(readFileSync(join(remoteView, "big.bin"), "utf8")).toBe("small now\n");
	}, 60_000);

	it("the store is keyed by the workspace URL: never the local folder of the same path", async (context) => {
		if (!sshd.sshd) return context.skip();
		const workspace = open();
		const { checkpoints } = await setup();
		expect(workspace.urlOf(project)).toBe(url());
		expect(checkpoints.store.dir).toBe(checkpointDirOf({ workspace: url(), stateDir: state }));
		expect(checkpoints.store.dir).not.toBe(checkpointDirOf({ workspace: project, stateDir: state }));
	}, 60_000);
});

const run = promisify(execFile);

/** Runs the built CLI from `/` with a state folder of its own. */
async function cli(args: string[]) {
	const result = await run(process.execPath, [ensureBuiltCli(), ...args], {
		cwd: "/",
		env: cleanEnv({ XDG_STATE_HOME: state }),
		timeout: 30_000,
	}).catch((error: { stdout: string; stderr: string; code: number }) => error);
	return { stdout: result.stdout, stderr: result.stderr, code: "code" in result ? result.code : 0 };
}

describe("toolbelt undo --workspace ssh://…", () => {
	const remote = () => [
		"--workspace",
		url(),
		...(sshd.sshd?.sshOptions ?? []).flatMap((option) => ["--ssh-option", option]),
	];

	it("takes back a remote `toolbelt tool write`, refuses after a remote change, and --force overwrites", async (context) => {
		if (!sshd.sshd) return context.skip();
		writeFileSync(join(remoteView, "kept.txt"), "before\n");
		const first = await cli(["tool", "write", JSON.stringify({ path: "made.txt", content: "one\n" }), ...remote()]);
		expect(first.code, first.stderr).toBe(0);
		expect(first.stderr).not.toMatch(/checkpoints are off/);
		const second = await cli([
			"tool",
			"write",
			JSON.stringify({ path: "deep/two.txt", content: "two\n" }),
			...remote(),
		]);
		expect(second.code, second.stderr).toBe(0);
		expect(readFileSync(join(remoteView, "deep", "two.txt"), "utf8")).toBe("two\n");

		const listed = await cli(["checkpoints", ...remote()]);
		expect(listed.code, listed.stderr).toBe(0);
		expect(listed.stdout).toMatch(/1\. .*\(write\): deep\/two\.txt\n2\. .*\(write\): made\.txt/);
		// The local folder of the same path has no checkpoints: the remote ones are kept apart.
		expect((await cli(["checkpoints", "--cwd", project])).stdout).toContain("No checkpoints");

		const undone = await cli(["undo", ...remote()]);
		expect(undone.code, undone.stderr).toBe(0);
		expect(undone.stdout).toContain("removed deep/two.txt");
		expect(existsSync(join(remoteView, "deep", "two.txt"))).toBe(false);
		expect(readFileSync(join(remoteView, "made.txt"), "utf8")).toBe("one\n");

		writeFileSync(join(remoteView, "made.txt"), "changed on the remote\n");
		const refused = await cli(["undo", ...remote()]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("made.txt");
		expect(refused.stderr).toContain("--force");
		expect(existsSync(join(remoteView, "made.txt"))).toBe(true);

		const forced = await cli(["undo", "--force", ...remote()]);
		expect(forced.code, forced.stderr).toBe(0);
		expect(existsSync(join(remoteView, "made.txt"))).toBe(false);
		expect(readFileSync(join(remoteView, "kept.txt"), "utf8")).toBe("before\n");
	}, 120_000);

	it("`toolbelt mcp --workspace`: one turn per request, undone there", async (context) => {
		if (!sshd.sshd) return context.skip();
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [ensureBuiltCli(), "mcp", ...remote()],
			env: cleanEnv({ XDG_STATE_HOME: state }),
			cwd: "/",
			stderr: "pipe",
		});
		const client = new Client({ name: "toolbelt-test", version: "1.0.0" });
		await client.connect(transport);
		try {
			for (const [path, content] of [
				["one.txt", "1\n"],
				["two.txt", "2\n"],
			]) {
				const result = await client.callTool({ name: "write", arguments: { path, content } });
				expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
			}
		} finally {
			await client.close();
		}
		const undone = await cli(["undo", ...remote()]);
		expect(undone.code, undone.stderr).toBe(0);
		expect(undone.stdout).toMatch(/Undid 1 call in 1 turn:\n {2}removed two\.txt\n/);
		expect(existsSync(join(remoteView, "two.txt"))).toBe(false);
		expect(readFileSync(join(remoteView, "one.txt"), "utf8")).toBe("1\n");
	}, 120_000);
});
