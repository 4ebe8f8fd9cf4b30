// A file name may hold any byte but `/` and NUL, and the model picks the names the agent writes.
// `toolbelt checkpoints` and `toolbelt undo` print the names from the log to the user's terminal:
// a name holding ESC sequences and a newline must not move the cursor, erase the lines that list
// what undo refused, or add a forged "restored …" line. Names are shown escaped (`\e`, `\n`).
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

/** Erases the line above and writes a forged one, then hides what follows. */
const NAME = "notes\u001b[1A\u001b[2K\r  restored README.md\n  removed \u001b[8mhidden";
const SHOWN = "notes\\e[1A\\e[2K\\r  restored README.md\\n  removed \\e[8mhidden";

/** Controls a terminal acts on: every C0 control but the line feed, DEL and the C1 controls. */
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe.each(testUsers())("names from the checkpoint log, as %s", (user) => {
	it("toolbelt checkpoints and toolbelt undo show a name's control characters escaped", async () => {
		const workspace = join(tempDir(), "workspace");
		const home = join(tempDir(), "home");
		await mkdir(workspace);
		await mkdir(home);
		await handOver(tempDir(), user);
		const options = { cwd: workspace, env: cleanEnv({ HOME: home }), user };
		const write = await cli.run(["tool", "write", JSON.stringify({ path: NAME, content: "hi\n" })], options);
		expect(write.code, write.stderr).toBe(0);
		expect(await readdir(workspace)).toEqual([NAME]);

		const listed = await cli.run(["checkpoints"], options);
		expect(listed.code, listed.stderr).toBe(0);
		expect(listed.stdout).not.toMatch(TERMINAL_CONTROLS);
		expect(listed.stdout).toContain(SHOWN);
		expect(listed.stdout.split("\n").filter(Boolean)).toHaveLength(2);

		const undo = await cli.run(["undo"], options);
		expect(undo.code, undo.stderr).toBe(0);
		expect(undo.stdout + undo.stderr).not.toMatch(TERMINAL_CONTROLS);
		expect(undo.stdout.split("\n").filter(Boolean)).toEqual(["Undid 1 call in 1 turn:", `  removed ${SHOWN}`]);
		expect(await readdir(workspace)).toEqual([]);
	}, 60_000);
});
