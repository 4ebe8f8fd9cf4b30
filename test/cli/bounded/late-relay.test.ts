import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { handOver, testUsers } from "../../helpers/test-users.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";

/**
 * The command stops its own output relay (found as the reader of its stdout), writes a line, and
 * leaves a background job that holds the pipe, so the relay's channel stays open after the shell
 * exits. A relay starved of CPU on a loaded machine is in the same state: the line is in the pipe,
 * not yet in the output file. Before the relay's state was read, this answered "(no output)".
 */
const stopOwnRelay = [
	"out=$(readlink /proc/$$/fd/1)",
	"for p in /proc/[0-9]*; do",
	'  case "$(tr "\\\\0" " " 2>/dev/null < $p/cmdline)" in',
	'    toolbelt-output-relay*) [ "$(readlink $p/fd/0 2>/dev/null)" = "$out" ] && relay=$(basename "$p");;',
	"  esac",
	"done",
	'kill -STOP "$relay"',
	"echo copied late",
	'(sleep 0.5; kill -CONT "$relay") &',
	"sleep 30 &",
].join("\n");

describe.skipIf(process.platform !== "linux").each(testUsers())(
	"toolbelt tool bash when the output relay is behind as the shell exits, as %s",
	(user) => {
		const dir = useTempDir();
		const processes = new CliProcesses();
		afterEach(() => processes.killAll());

		it("waits for the relay to copy the command's output", async () => {
			const workspace = join(dir(), "workspace");
			const home = join(dir(), "home");
			await mkdir(workspace);
			await mkdir(home);
			await handOver(dir(), user);
			const env = cleanEnv({ HOME: home, XDG_STATE_HOME: join(home, "state") });
			const run = await processes.run(["tool", "bash", JSON.stringify({ command: stopOwnRelay, timeout: 20 })], {
				cwd: workspace,
				env,
				user,
			});
			expect(run.stderr).toBe("");
			expect(run.stdout).toMatch(/^copied late\n/);
			expect(run.stdout).toMatch(/Still running in the background: pid \d+/);
		}, 60_000);
	},
);
