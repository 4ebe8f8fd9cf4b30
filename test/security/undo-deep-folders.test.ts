// A write may make its folders: `b/a/a/…/f.txt`, two thousand deep, makes two thousand. The
// checkpoint recorded each made folder by its absolute path — 4 MB of log for one call — so a
// program of writes grew the log past what can be read (undo then saw no checkpoint at all) and
// made every later call read it whole. A checkpoint records at most the deepest 64 folders a
// write made; undo removes those (when empty) and the file. As root and as an unprivileged user.
import { lstat, mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointDirOf } from "../../src/checkpoints/index.js";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

/** Folders the write makes: 800 cost 650 KB of log; the deepest 64 of them, about 100 KB. */
const DEPTH = 800;

const exists = (path: string) =>
	lstat(path).then(
		() => true,
		() => false,
	);

describe.each(testUsers())("a write that makes thousands of folders, as %s", (user) => {
	it("keeps its checkpoint small, and undo removes the file and the deepest folders", async () => {
		const workspace = join(tempDir(), "workspace");
		const home = join(tempDir(), "home");
		const state = join(home, "state");
		await mkdir(workspace);
		await mkdir(home);
		await handOver(tempDir(), user);
		const options = { cwd: workspace, env: cleanEnv({ HOME: home, XDG_STATE_HOME: state }), user };
		const folder = ["b", ...Array.from({ length: DEPTH - 1 }, () => "a")].join("/");
		const write = await cli.run(["tool", "write", JSON.stringify({ path: `${folder}/f.txt`, content: "x" })], options);
		expect(write.code, write.stderr).toBe(0);

		const log = join(checkpointDirOf({ workspace, stateDir: state }), "log.jsonl");
		expect((await stat(log)).size).toBeLessThan(200 * 1024);

		const undo = await cli.run(["undo"], options);
		expect(undo.code, undo.stderr).toBe(0);
		expect(await exists(join(workspace, folder, "f.txt"))).toBe(false);
		expect(await exists(join(workspace, folder))).toBe(false);
		expect(await readdir(workspace)).toEqual(["b"]);
	}, 60_000);
});
