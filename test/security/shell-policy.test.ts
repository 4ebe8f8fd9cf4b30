import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

/**
 * Red-team tests of the shell policy (issue 25) against the built CLI as a user starts it, as root
 * and as an unprivileged user: forms of bash that ran `rm` under `--deny 'bash(rm:*)'` on the
 * hand-written splitter, programs that run other programs from their options, and options that
 * write files under an allow rule for a "read-only" command. Effects only: the victim file
 * survives, the file outside the workspace is not written, the marker is not made.
 */
describe.each(testUsers())("the shell policy holds (built CLI, as %s)", (user: TestUser) => {
	const tempDir = useTempDir();
	const processes = new CliProcesses();
	beforeAll(() => {
		ensureBuiltCli();
	});
	afterEach(() => processes.killAll());

	interface Setup {
		dir: string;
		home: string;
		outside: string;
		env: Record<string, string>;
	}

	async function project(): Promise<Setup> {
		const root = tempDir();
		const dir = join(root, "project");
		const home = join(root, "home");
		const outside = join(root, "outside");
		await mkdir(dir, { recursive: true });
		await mkdir(home, { recursive: true });
		await mkdir(outside, { recursive: true });
		await writeFile(join(dir, "victim"), "keep me\n");
		await writeFile(join(dir, "list"), "victim\n");
		await writeFile(join(outside, "kept.txt"), "keep me\n");
		const env = cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: "1", npm_config_update_notifier: "false" });
		execFileSync("git", ["init", "-q"], { cwd: dir, env });
		await handOver(root, user);
		return { dir, home, outside, env };
	}

	function runBash(setup: Setup, command: string, flags: string[]) {
		return processes.run(["tool", "bash", JSON.stringify({ command }), ...flags], {
			cwd: setup.dir,
			env: setup.env,
			user,
		});
	}

	// Each ran `rm victim` under --deny 'bash(rm:*)' on the hand-written splitter (checked on the base commit).
	const denied: [string, string][] = [
		["hash -p", "hash -p /bin/rm ls; ls victim"],
		["trap on EXIT", "trap -- 'rm victim' EXIT"],
		["a line continuation inside the command name", "r\\\nm victim"],
		["BASH_CMDS", "BASH_CMDS[ls]=/bin/rm; ls victim"],
		["export BASH_ENV", "echo 'rm victim' > env.sh; export BASH_ENV=$PWD/env.sh; bash -c true; echo done"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
		["${x@P}", "x='$(rm victim)'; : \"${x@P}\""],
		["an arithmetic subscript", "i='a[$(rm victim)]'; : $((i))"],
		["mapfile -C", "printf 'a\\n' | mapfile -t -C 'rm victim;:' -c 1 lines"],
		["a shell reading /dev//stdin", "echo 'rm victim' | sh /dev//stdin"],
		["a shell reading /proc/thread-self/fd/0", "echo 'rm victim' | bash /proc/thread-self/fd/0"],
		["sed's e command", "sed -n '1e rm victim' list"],
		["tar --checkpoint-action", "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm victim' list"],
		["a git alias given with -c", "git -c alias.x='!rm victim' x"],
		["git -c core.fsmonitor", "git -c core.fsmonitor='rm victim' status"],
		["npm exec -c", "npm exec -c 'rm victim'"],
		["gdb -ex shell", "gdb -batch -ex 'shell rm victim'"],
		["vim -c '!…'", "vim -es -c '!rm victim' -c 'q!'"],
	];

	it.each(denied)(
		"deny bash(rm:*) holds against %s",
		async (_name, command) => {
			const setup = await project();
			const result = await runBash(setup, command, ["--deny", "bash(rm:*)"]);
			expect(existsSync(join(setup.dir, "victim")), `${command}\n${result.stdout}${result.stderr}`).toBe(true);
		},
		60_000,
	);

	/** Commands that an allow rule for a "read-only" program let write outside the workspace, or run another program. */
	const allowed: [string, string, (setup: Setup) => string, (setup: Setup) => boolean][] = [
		[
			"git diff --output to ~/.bashrc",
			"bash(git diff:*)",
			() => "git diff --output=$HOME/.bashrc",
			(setup) => !existsSync(join(setup.home, ".bashrc")),
		],
		[
			"git log --output",
			"bash(git log:*)",
			(setup) => `git log --output=${join(setup.outside, "log.txt")}`,
			(setup) => !existsSync(join(setup.outside, "log.txt")),
		],
		[
			"sort -o",
			"bash(sort:*)",
			(setup) => `sort -o ${join(setup.outside, "sorted.txt")} list`,
			(setup) => !existsSync(join(setup.outside, "sorted.txt")),
		],
		[
			"find -fprintf",
			"bash(find:*)",
			(setup) => `find . -maxdepth 0 -fprintf ${join(setup.outside, "found.txt")} planted`,
			(setup) => !existsSync(join(setup.outside, "found.txt")),
		],
		[
			"sed's w command",
			"bash(sed:*)",
			(setup) => `sed -n 'w ${join(setup.outside, "copied.txt")}' list`,
			(setup) => !existsSync(join(setup.outside, "copied.txt")),
		],
		[
			"sed -i",
			"bash(sed:*)",
			(setup) => `sed -i s/keep/lose/ ${join(setup.outside, "kept.txt")}`,
			(setup) => readFileSync(join(setup.outside, "kept.txt"), "utf8") === "keep me\n",
		],
		[
			"find -exec",
			"bash(find:*)",
			() => "find . -name victim -exec rm {} \\;",
			(setup) => existsSync(join(setup.dir, "victim")),
		],
		[
			"find -delete",
			"bash(find:*)",
			(setup) => `find ${setup.outside} -name kept.txt -delete`,
			(setup) => existsSync(join(setup.outside, "kept.txt")),
		],
		[
			"sed's e command",
			"bash(sed:*)",
			() => "sed -n '1e touch marker' list",
			(setup) => !existsSync(join(setup.dir, "marker")),
		],
	];

	it.each(allowed)(
		"an allow rule does not cover %s (%s)",
		async (_name, rule, command, holds) => {
			const setup = await project();
			const text = command(setup);
			const result = await runBash(setup, text, ["--allow", rule, "--mode", "default"]);
			expect(holds(setup), `${text}\n${result.stdout}${result.stderr}`).toBe(true);
		},
		60_000,
	);

	it("positive controls: a pipeline and a heredoc to a file run under the deny rule", async () => {
		const setup = await project();
		const pipeline = await runBash(setup, "echo fine | tr a-z A-Z && git diff --stat", ["--deny", "bash(rm:*)"]);
		expect(pipeline.stdout).toContain("FINE");
		const heredoc = await runBash(setup, "cat <<EOF > note.txt\nhello $USER\nEOF", ["--deny", "bash(rm:*)"]);
		expect(existsSync(join(setup.dir, "note.txt")), heredoc.stdout + heredoc.stderr).toBe(true);
	}, 60_000);

	it("positive controls: a loop runs in yolo mode without deny rules; an allowed git diff runs", async () => {
		const setup = await project();
		const loop = await runBash(setup, "for f in a b; do touch loop-$f; done", []);
		expect(existsSync(join(setup.dir, "loop-b")), loop.stdout + loop.stderr).toBe(true);
		const allowedRun = await runBash(setup, "git diff --stat", ["--allow", "bash(git diff:*)", "--mode", "default"]);
		expect(allowedRun.code, allowedRun.stdout + allowedRun.stderr).toBe(0);
	}, 60_000);
});
