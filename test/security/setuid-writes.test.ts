// A file tool that replaces a set-user-ID or set-group-ID file's content must not keep the bit:
// the model's bytes would become a program that runs as the file's owner — root's, for a toolbelt
// running as root, as every such program of a root file system built in the workspace is (the
// write tool takes any text, and a program can be written in printable bytes). The kernel drops
// both bits when a process without CAP_FSETID writes a file; write, edit and apply_patch do too,
// keeping the other permission bits. Nor does `toolbelt undo` put them back: it makes the file
// anew as the user running it, so another user's set-user-ID program would come back as a program
// of that user (root's, typically) — the other user's way to root, with no model needed.
// As root and as an unprivileged user.
import { chmod, lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const patch = ["*** Begin Patch", "*** Update File: patched", "@@", "-old", "+new", "*** End Patch"].join("\n");
const calls: [string, string, Record<string, unknown>][] = [
	["written", "write", { path: "written", content: "new\n" }],
	["edited", "edit", { path: "edited", old_string: "old", new_string: "new" }],
	["patched", "apply_patch", { patch }],
];

describe.each(testUsers())("a write over a set-user-ID file, as %s", (user) => {
	it("write, edit and apply_patch drop set-user-ID and set-group-ID and keep the other bits", async () => {
		const workspace = join(tempDir(), "workspace");
		await mkdir(workspace);
		await mkdir(join(tempDir(), "home"));
		for (const [name] of calls) await writeFile(join(workspace, name), "old\n");
		await handOver(tempDir(), user);
		// After the hand-over: changing a file's owner drops these bits.
		for (const [name] of calls) await chmod(join(workspace, name), 0o6755);
		const env = cleanEnv({ HOME: join(tempDir(), "home") });
		for (const [name, tool, args] of calls) {
			const run = await cli.run(["tool", tool, JSON.stringify(args)], { cwd: workspace, env, user });
			expect(run.code, run.stderr).toBe(0);
			expect(await readFile(join(workspace, name), "utf8")).toBe("new\n");
			expect(((await lstat(join(workspace, name))).mode & 0o7777).toString(8), name).toBe("755");
		}
	}, 60_000);

	it("undo puts the content and the other bits back, not set-user-ID and set-group-ID", async () => {
		const workspace = join(tempDir(), "workspace");
		await mkdir(workspace);
		await mkdir(join(tempDir(), "home"));
		await writeFile(join(workspace, "helper"), "old\n");
		await handOver(tempDir(), user);
		await chmod(join(workspace, "helper"), 0o6755);
		const options = { cwd: workspace, env: cleanEnv({ HOME: join(tempDir(), "home") }), user };
		const write = await cli.run(["tool", "write", JSON.stringify({ path: "helper", content: "new\n" })], options);
		expect(write.code, write.stderr).toBe(0);

		const undo = await cli.run(["undo"], options);
		expect(undo.code, undo.stderr).toBe(0);
		expect(await readFile(join(workspace, "helper"), "utf8")).toBe("old\n");
		expect(((await lstat(join(workspace, "helper"))).mode & 0o7777).toString(8)).toBe("755");
	}, 60_000);
});
