import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../../src/tools/bash.js";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { replacesShell } from "../../../src/workspace/local/shell/standby-in-place.js";
import { standbyShellStarts } from "../../../src/workspace/local/shell/standby-shell.js";
import { commandCgroupsUnavailableReason } from "../../helpers/prerequisites.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { runTool } from "./run-tool.js";

// A plain bash command started from a standby shell is run by that shell itself, not by a second
// bash it execs (standby-in-place.ts). Each command here runs twice through the bash tool: once
// started afresh (the relay's wrapper execs `/bin/bash --norc --noprofile -c COMMAND`) and once
// from a standby, and the model must read the same text both times.

afterEach(async () => {
	await disposeShellProcesses();
});

type BashTool = ReturnType<typeof createBashTool>;

async function run(tool: BashTool, command: string) {
	const before = standbyShellStarts();
	const outcome = await runTool(tool, { command });
	const fromStandby = standbyShellStarts() > before;
	// A turn of the event loop, as a model's reply would give: the next standby starts in it.
	await new Promise((resolve) => setImmediate(resolve));
	return { ...outcome, fromStandby };
}

/** The last word of the command line of the command's own shell: the standby's name when run in place. */
const shellName = `tr '\\0' '\\n' < /proc/$$/cmdline | tail -n 1`;

/**
 * Runs `command` afresh, then from a standby: a call in another folder leaves the standby there,
 * so the call in `folder` starts afresh, and its result starts the standby the next call takes.
 */
async function freshThenStandby(folder: string, command: string, env: Record<string, string> = {}) {
	const elsewhere = createBashTool(join(folder, ".."));
	const tool = createBashTool(folder, { env });
	await run(elsewhere, "true");
	const fresh = await run(tool, command);
	const standby = await run(tool, command);
	expect(fresh.fromStandby).toBe(false);
	expect(standby.fromStandby).toBe(true);
	return { fresh, standby };
}

const noCgroups = commandCgroupsUnavailableReason();
describe.skipIf(noCgroups !== undefined)("a bash command run in place by its standby shell", () => {
	const tempDir = useTempDir();
	const folder = () => {
		const path = join(tempDir(), "work");
		mkdirSync(path, { recursive: true });
		return path;
	};

	it("is run by the standby itself", async () => {
		const { fresh, standby } = await freshThenStandby(folder(), shellName);
		// A fresh bash's last argument is its command.
		expect(fresh.text).toBe(shellName);
		expect(standby.text).toBe("toolbelt-standby");
	});

	it("gives the command the state a fresh bash starts with: $0, arguments, $_, options, variables, line numbers", async () => {
		const env = { ODD: 'it\'s a "value"\nwith $(no) `expansion`', EMPTY: "", LANG: "C.UTF-8", TZ: "UTC", SHLVL: "6" };
		const command = [
			'printf "[%s] " "$_" "$0" "$#" "$-" "$SHLVL" "$BASH_EXECUTION_STRING" "$BASH_SUBSHELL"; echo',
			"not-a-command-here",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
			'echo "line $LINENO"; f() { echo "${FUNCNAME[*]}|${BASH_LINENO[*]}|${BASH_SOURCE[*]}"; }; f',
			"compgen -v | sort | tr '\\n' ' '; echo",
			"compgen -A function; compgen -a; compgen -A export | sort | tr '\\n' ' '; echo",
			"env | grep -v '^TOOLBELT_SHELL_RUN=' | sort",
			"set -o | tr -s ' \\t' ' '; shopt | tr -s ' \\t' ' '",
			'trap -p; jobs; hash; umask; printf \'%q\\n\' "$IFS"; echo "pwd=$PWD"',
			// Listed from a command substitution, whose pipe the shell holds for certain while `ls` runs (in
			// a pipeline, whether the shell has closed its ends yet when `ls` looks was a race).
			'fds=$(ls /proc/$$/fd); echo "fds:" $fds; echo to-stderr >&2',
			"exit 3",
		].join("\n");
		const { fresh, standby } = await freshThenStandby(folder(), command, env);
		expect(fresh.text).toContain("line 2: not-a-command-here: command not found");
		expect(fresh.text).toContain("Command exited with code 3");
		expect(standby.text).toBe(fresh.text);
	});

	it("reports a syntax error as a fresh bash does, named as an eval's", async () => {
		const command = "echo before\nif true; then echo unfinished";
		const { fresh, standby } = await freshThenStandby(folder(), command);
		expect(fresh.text).toMatch(/^before\n\/bin\/bash: -c: line 3: syntax error: unexpected end of file/);
		expect(standby.text).toBe(fresh.text.replace("/bin/bash: -c: line", "/bin/bash: eval: line"));
	});

	it("ends where the command ends, whatever the command defined (an exit function)", async () => {
		const { fresh, standby } = await freshThenStandby(folder(), "exit() { echo from-the-function; }; echo done");
		expect(fresh.text).toBe("done");
		expect(standby.text).toBe(fresh.text);
	});

	it("runs a command too long for an argument (read from stdin) the same way", async () => {
		const command = `${"# padding\n".repeat(12_000)}echo "long $LINENO $0"; read -r line; echo "stdin=[$line]"`;
		const { fresh, standby } = await freshThenStandby(folder(), command);
		expect(fresh.text).toBe("long 12001 /bin/bash\nstdin=[]");
		expect(standby.text).toBe(fresh.text);
	});

	it("takes the exec path for a variable bash acts on only as it starts, and the command still gets it", async () => {
		const command = `${shellName}; printf '%q\\n' "$IFS" "$POSIXLY_CORRECT"; shopt -o posix; (set -x; :)`;
		const envs: Record<string, string>[] = [{ IFS: ":" }, { RANDOM: "5" }, { PS4: "@ " }, { POSIXLY_CORRECT: "1" }];
		for (const env of envs) {
			const { fresh, standby } = await freshThenStandby(folder(), command, env);
			expect(standby.text.split("\n")[0]).toBe(command);
			expect(standby.text).toBe(fresh.text);
		}
	});

	it("starts afresh for a variable bash keeps read-only (BASHOPTS sets options) or one of the standby's own", async () => {
		const command = "shopt extglob; env | grep -E '^(BASHOPTS|UID|EUID)=' | sort";
		const envs: Record<string, string>[] = [
			{ BASHOPTS: "extglob" },
			{ UID: "12345", EUID: "54321" },
			{ toolbelt_not_joined: "1" },
		];
		for (const env of envs) {
			const tool = createBashTool(folder(), { env });
			const first = await run(tool, command);
			const second = await run(tool, command);
			expect(second.fromStandby).toBe(false);
			expect(second.text).toBe(first.text);
			if (env.BASHOPTS !== undefined) expect(second.text.split("\n")[0]).toMatch(/^extglob\s+on$/);
			else if (env.UID !== undefined) expect(second.text).toContain("EUID=54321\nUID=12345");
			// One of the standby's own variables would steer its script (this one: refuse the command).
			else expect(second.text).toMatch(/^extglob\s+off$/);
		}
	});

	it("runs a command that is one program and its plain words in place of itself, as a fresh bash does", async () => {
		// A fresh `bash -c` execs such a program, whose parent is then toolbelt; forked by the standby,
		// its parent was the standby.
		const { fresh, standby } = await freshThenStandby(folder(), "grep PPid /proc/self/status");
		expect(fresh.text).toBe(`PPid:\t${process.pid}`);
		expect(standby.text).toBe(fresh.text);
		// Found through a relative PATH entry: run by that path, as a fresh bash runs it (a script's $0).
		const work = folder();
		mkdirSync(join(work, "bin"), { recursive: true });
		writeFileSync(join(work, "bin", "say-name"), "#!/bin/sh\necho $0\n");
		chmodSync(join(work, "bin", "say-name"), 0o755);
		const relative = await freshThenStandby(work, "say-name", { PATH: `bin:${process.env.PATH ?? "/usr/bin:/bin"}` });
		expect(relative.fresh.text).toMatch(/^(\.\/)?bin\/say-name$/);
		expect(relative.standby.text).toBe(relative.fresh.text);
		const seq = await freshThenStandby(folder(), "seq 1 3");
		expect(seq.standby.text).toBe("1\n2\n3");
		// The program's path in `_`, which bash exports for a program it starts.
		const underscore = await freshThenStandby(folder(), "printenv _");
		expect(underscore.fresh.text).toMatch(/^\/.*\/printenv$/);
		expect(underscore.standby.text).toBe(underscore.fresh.text);
		// No descriptor of the standby's left open, no signal ignored or blocked.
		for (const command of ["ls /proc/self/fd", "grep SigIgn /proc/self/status", "grep SigBlk /proc/self/status"]) {
			const state = await freshThenStandby(folder(), command);
			expect(state.standby.text).toBe(state.fresh.text);
		}
	});

	it("runs a builtin, and a program bash cannot find or run, as a fresh bash does", async () => {
		const work = folder();
		writeFileSync(join(work, "notes.txt"), "not a program\n");
		writeFileSync(join(work, "run-me"), "#!/bin/sh\necho ran $0 $1\n");
		chmodSync(join(work, "run-me"), 0o755);
		mkdirSync(join(work, "sub"), { recursive: true });
		const expected: Record<string, RegExp> = {
			// `exec type` would look for a program named type.
			"type type": /^type is a shell builtin$/,
			"no-such-program-here now": /^\/bin\/bash: line 1: no-such-program-here: command not found\n.*127/s,
			"./notes.txt": /^\/bin\/bash: line 1: \.\/notes\.txt: Permission denied\n.*126/s,
			"./sub": /^\/bin\/bash: line 1: \.\/sub: Is a directory\n.*126/s,
			"./run-me now": /^ran \.\/run-me now$/,
		};
		for (const [command, text] of Object.entries(expected)) {
			const { fresh, standby } = await freshThenStandby(work, command);
			expect(fresh.text).toMatch(text);
			expect(standby.text).toBe(fresh.text);
		}
	});

	it("reports what a command left running, its subshells included, as a fresh bash's", async () => {
		// A background subshell carries its shell's command line: the standby's, when run in place.
		const command = '(sleep 30; echo late) & echo "subshell $!"';
		const { fresh, standby } = await freshThenStandby(folder(), command);
		for (const { text } of [fresh, standby]) {
			const subshell = /^subshell (\d+)$/m.exec(text)?.[1];
			const pids = /background: pid ([\d, ]+)\./.exec(text)?.[1]?.split(", ") ?? [];
			expect(pids).toContain(subshell);
		}
		// The inner sleep may not be started yet when the subshell is found: the lists may differ.
		const withoutPids = (text: string) => text.replace(/\d+/, "N").replace(/pid [\d, ]+/, "pid N");
		expect(withoutPids(standby.text)).toBe(withoutPids(fresh.text));
	});
});

describe("a command bash runs in place of itself", () => {
	it("is one program and its arguments, plain words one space apart", () => {
		for (const command of ["seq 1 100000", "git status --short", "npm test", "vitest run test/a.test.ts"])
			expect(replacesShell(command)).toBe(true);
		expect(replacesShell("cargo build --features=a,b user@host:path 50%")).toBe(true);
	});

	it("is not a builtin, reserved word, job, option, assignment, or anything a shell reads a meaning into", () => {
		const others = [
			"echo ok",
			"type type",
			"exec ls",
			"time ls",
			"if",
			". ./env.sh",
			"%1",
			"-x",
			"A=1 ls",
			"./gradlew build",
			"/usr/bin/seq 3",
			"ls; rm x",
			"ls && rm x",
			"ls | wc",
			"ls &",
			"ls\nrm x",
			"ls\trm",
			"ls $HOME",
			"ls ~",
			"ls *.ts",
			"ls 'a b'",
			'ls "a"',
			"ls a\\ b",
			"ls # note",
			"ls >out",
			"ls (x)",
			" ls",
			"",
		];
		for (const command of others) expect(replacesShell(command), command).toBe(false);
	});
});
