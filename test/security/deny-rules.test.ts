import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { useTempDir } from "../helpers/temp-dir.js";

/**
 * Red-team tests of the permission rules as a user gives them:
 * `toolbelt tool bash '{"command":…}' --deny 'bash(rm:*)'`. In yolo mode (the default of `tool`
 * and `mcp`) deny rules are the only guard, so each way of dressing up `rm` must be refused and
 * the file must survive; allow rules must not let a command write where the rule does not name.
 * The many ways of dressing up `rm` run through the CLI's entry (`main`) in this process: what they
 * try is the rule's judgement of the command, the same there; the built CLI, started as a user
 * starts it, runs the other tests (one of them a dressed-up `rm`).
 */
describe("deny rules hold against shell syntax (the CLI's entry, and the built CLI)", () => {
	const tempDir = useTempDir();
	const processes = new CliProcesses();
	beforeAll(() => {
		ensureBuiltCli();
	});
	afterEach(() => processes.killAll());

	async function project(): Promise<string> {
		const dir = join(tempDir(), "project");
		await mkdir(dir, { recursive: true });
		await writeFile(join(dir, "victim"), "keep me\n");
		await writeFile(join(dir, "list"), "victim\n");
		return dir;
	}

	function runBash(cwd: string, command: string, flags: string[]) {
		return processes.run(["tool", "bash", JSON.stringify({ command }), ...flags], { cwd, env: cleanEnv() });
	}

	/** `runBash` through `main` in this process, with the environment the built CLI gets. */
	async function runBashInProcess(cwd: string, command: string, flags: string[]) {
		const memory = createMemoryIO({ cwd, env: cleanEnv() });
		const code = await main(["tool", "bash", JSON.stringify({ command }), ...flags], memory.io);
		return { code, stdout: memory.stdout(), stderr: memory.stderr() };
	}

	// Each of these runs `rm victim` when nothing stops it (checked on the base commit).
	const dressedUp: [string, string][] = [
		["a redirection before the command", "2>/dev/null rm victim"],
		["case … esac", "case x in x) rm victim;; esac"],
		["coproc", "coproc rm victim; wait"],
		["a function body", "f() { rm victim; }; f"],
		["an expanded command name", "x=rm; $x victim"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
		["a default-value expansion", "${x:-rm} victim"],
		["a shell reading a pipe", "printf 'rm victim' | sh"],
		["a shell reading a here-string", "sh <<< 'rm victim'"],
		["a shell reading a heredoc", "sh <<'EOF'\n$(printf r)m victim\nEOF"],
		["a shell script from a variable", "x='rm victim'; bash -c \"$x\""],
		["eval of a substitution", "eval \"$(printf 'rm victim')\""],
		["source of a process substitution", "source <(printf 'rm victim')"],
		["an interpreter with inline code", "node -e \"require('fs').rmSync('victim')\""],
		["xargs -a", "xargs -a list rm"],
		["xargs -I into sh -c", "echo 'rm victim' | xargs -I% sh -c %"],
		["flock", "flock lockfile rm victim"],
		["chroot", "chroot --skip-chdir / rm victim"],
		["strace", "strace -f -o /dev/null rm victim"],
		["watch", "timeout 3 watch -n 0.1 rm victim"],
		["nice with a value", "nice -n 5 rm victim"],
		["timeout with -k", "timeout -k 1 5 rm victim"],
		["env -u", "env -u X rm victim"],
		["stdbuf", "stdbuf -o L rm victim"],
		["ionice", "ionice -c 3 rm victim"],
		["taskset", "taskset -c 0 rm victim"],
		["time -p", "time -p rm victim"],
		["find -exec", "find . -name victim -exec rm {} \\;"],
		// Bash evaluates a value given to RANDOM, SRANDOM, OPTIND or HISTCMD as arithmetic, subscripts and all.
		["RANDOM's value", "RANDOM='a[$(rm victim)]'"],
		["export OPTIND", "export OPTIND='a[$(rm victim)]'"],
		["read into SRANDOM", "read SRANDOM <<< 'a[$(rm victim)]'"],
		["printf -v HISTCMD", "printf -v HISTCMD 'a[$(rm victim)]'"],
		["printf -vRANDOM, the name attached", "printf -vRANDOM 'a[$(rm victim)]'"],
		["mapfile RANDOM", "mapfile RANDOM <<< 'a[$(rm victim)]'"],
		// `>&word` to a file: bash expands the word's value a second time.
		["a >& target expanded twice", "echo hi >&'$(rm victim)x'"],
		["a 2>& target from a variable", "x='$(rm victim)'; echo hi 2>&$x"],
		// The assignments env and sudo pass to the command are the command's environment.
		["BASH_ENV given to env", "env BASH_ENV=/dev/stdin bash -c true <<< 'rm victim'"],
		// env takes every word holding `=` before the command for an assignment, and a lone `-` for -i.
		["a quoted assignment before env's command", "env 'X=1' rm victim"],
		["an assignment to a name bash would not take", "env a-b=c rm victim"],
		["env -", "env - rm victim"],
		// getopt takes any unambiguous prefix of a long option.
		["sed --exp, an abbreviated --expression", "sed -n --exp='1e rm victim' list"],
		["make --ev, an abbreviated --eval", "make --ev='$(shell rm victim)'"],
		["make -E with its value attached", "make '-E$(shell rm victim)'"],
		["jobs -x, which runs its arguments", "jobs -x rm victim"],
		// Options that change how bash reads the lines after them.
		["history expansion turned on", "set -o history -H\necho rm victim\n!!:1-2"],
		["history expansion turned on by shopt -o", "shopt -so history histexpand\necho rm victim\n!!:1-2"],
		["set -k, an argument that becomes the environment", "set -k; bash -c true BASH_ENV=/dev/stdin <<< 'rm victim'"],
		["an awk program from a variable", 'x=\'BEGIN { system("rm victim") }\'; awk "$x"'],
	];

	it.each(dressedUp)("%s: %s", async (_name, command) => {
		const dir = await project();
		const result = await runBashInProcess(dir, command, ["--deny", "bash(rm:*)"]);
		expect(existsSync(join(dir, "victim")), `${command}\n${result.stdout}${result.stderr}`).toBe(true);
		expect(result.code).not.toBe(0);
		expect(result.stdout + result.stderr).toMatch(/Permission denied/);
	});

	it("a NUL, which bash drops from a command too long for an argument (it comes on bash's input)", async () => {
		const dir = await project();
		// Over 100 KB of UTF-8, under the parser's 65,536 characters.
		const command = `r\u0000m victim # ${"\u20ac".repeat(40_000)}`;
		const result = await runBashInProcess(dir, command, ["--deny", "bash(rm:*)"]);
		expect(existsSync(join(dir, "victim")), `${result.stdout}${result.stderr}`.slice(0, 500)).toBe(true);
		expect(result.stdout + result.stderr).toMatch(/NUL character/);
	});

	it("says which construct made the rule apply and how to write the command plainly", async () => {
		const dir = await project();
		const result = await runBash(dir, "x=rm; $x victim", ["--deny", "bash(rm:*)"]);
		expect(result.stdout + result.stderr).toMatch(/expanded command name: \$x/);
		expect(result.stdout + result.stderr).toMatch(/name the program literally/);
	});

	it("a command without rm still runs under the deny rule", async () => {
		const dir = await project();
		const result = await runBash(dir, "echo fine | tr a-z A-Z", ["--deny", "bash(rm:*)"]);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain("FINE");
	});

	it("an allow rule for echo does not allow writing outside the workspace", async () => {
		const dir = await project();
		const outside = join(tempDir(), "outside.txt");
		const result = await runBash(dir, `echo planted > ${outside}`, ["--allow", "bash(echo:*)", "--mode", "default"]);
		expect(existsSync(outside), result.stdout + result.stderr).toBe(false);
		expect(result.stdout + result.stderr).toMatch(/outside the workspace/);
		// Inside the workspace the same rule still lets it write.
		const inside = await runBash(dir, "echo fine > inside.txt", ["--allow", "bash(echo:*)", "--mode", "default"]);
		expect(inside.code, inside.stdout + inside.stderr).toBe(0);
		expect(existsSync(join(dir, "inside.txt"))).toBe(true);
	});

	it("an allow rule for echo or dd does not let ~user, ~- or of=~ place a write outside the workspace", async () => {
		const dir = await project();
		const outside = join(tempDir(), "outside");
		await mkdir(outside, { recursive: true });
		for (const command of [
			`cd ${outside} && cd ${dir} && echo planted > ~-/w.txt`,
			`echo planted > ~${userInfo().username}/toolbelt-tilde-test.txt`,
			// `of=~/…` looks like an assignment: bash expands its tilde.
			`dd if=list of=~${userInfo().username}/toolbelt-tilde-test.txt`,
		]) {
			const rules = ["bash(echo:*)", "bash(cd:*)", "bash(dd:*)"].flatMap((rule) => ["--allow", rule]);
			const result = await runBashInProcess(dir, command, [...rules, "--mode", "default"]);
			expect(existsSync(join(outside, "w.txt")), `${command}\n${result.stdout}${result.stderr}`).toBe(false);
			const planted = join(userInfo().homedir, "toolbelt-tilde-test.txt");
			const written = existsSync(planted);
			// Never leave a file in the real home folder, even when the check fails.
			await rm(planted, { force: true });
			expect(written, command).toBe(false);
		}
	});

	it("an allow rule for git status does not let it plant a git hook", async () => {
		const dir = await project();
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const hook = join(dir, ".git", "hooks", "pre-commit");
		for (const mode of ["default", "yolo"]) {
			const result = await runBash(dir, "git status > .git/hooks/pre-commit", [
				"--allow",
				"bash(git status:*)",
				"--mode",
				mode,
			]);
			expect(existsSync(hook), `${mode}: ${result.stdout}${result.stderr}`).toBe(false);
			expect(result.stdout + result.stderr).toMatch(/protected path/);
		}
	});

	it("an allow rule for echo does not cover what a >& target runs when bash expands it again", async () => {
		const dir = await project();
		const result = await runBashInProcess(dir, "echo hi >&'$(touch marker)x'", [
			"--allow",
			"bash(echo:*)",
			"--mode",
			"default",
		]);
		expect(existsSync(join(dir, "marker")), result.stdout + result.stderr).toBe(false);
	});

	it("writes are judged through env -C, git -C, tar's archive and abbreviated long options", async () => {
		const dir = await project();
		const outside = join(tempDir(), "outside");
		await mkdir(outside, { recursive: true });
		await writeFile(join(outside, "a"), "a\n");
		await writeFile(join(outside, "b"), "b\n");
		const commands = [
			`env -C ${outside} tee w.txt </dev/null`,
			`env --chdir=${outside} tee w.txt </dev/null`,
			`git -C ${outside} diff --no-index --output=w.txt a b`,
			`tar -cf ${join(outside, "w.txt")} list`,
			`tar cf ${join(outside, "w.txt")} list`,
			`tar --create --file=${join(outside, "w.txt")} list`,
		];
		for (const command of commands) {
			const result = await runBashInProcess(dir, command, ["--deny", `write(/${outside}/**)`]);
			expect(existsSync(join(outside, "w.txt")), `${command}\n${result.stdout}${result.stderr}`).toBe(false);
			expect(result.stdout + result.stderr).toMatch(/Permission denied/);
		}
		// Nor cd through a variable's value (cdable_vars), nor any opaque command: it may write anywhere.
		for (const command of [
			`shopt -s cdable_vars; x=${outside}; cd x && tee w.txt </dev/null`,
			`eval "echo x > ${join(outside, "w.txt")}"`,
		]) {
			const result = await runBashInProcess(dir, command, ["--deny", `write(/${outside}/**)`]);
			expect(existsSync(join(outside, "w.txt")), `${command}\n${result.stdout}${result.stderr}`).toBe(false);
			expect(result.stdout + result.stderr).toMatch(/may write any path/);
		}
		// Nor an abbreviated long option that writes, under an allow rule for its program.
		const abbreviated: [string, string][] = [
			["bash(sort:*)", `sort --o=${join(outside, "w.txt")} list`],
			["bash(sed:*)", `sed --in-pl s/a/lost/ ${join(outside, "a")}`],
			["bash(awk:*)", `awk 'BEGIN { print "x" > "${join(outside, "w.txt")}" }'`],
		];
		for (const [rule, command] of abbreviated) {
			const result = await runBashInProcess(dir, command, ["--allow", rule, "--mode", "default"]);
			expect(existsSync(join(outside, "w.txt")), `${command}\n${result.stdout}${result.stderr}`).toBe(false);
			expect(readFileSync(join(outside, "a"), "utf8"), command).toBe("a\n");
		}
		// An allow rule for tar is not one for writing its archive outside the workspace.
		const allowed = await runBashInProcess(dir, `tar -cf ${join(outside, "w.txt")} list`, [
			"--allow",
			"bash(tar:*)",
			"--mode",
			"default",
		]);
		expect(existsSync(join(outside, "w.txt")), allowed.stdout + allowed.stderr).toBe(false);
		const inside = await runBashInProcess(dir, "tar -cf inside.tar list", [
			"--allow",
			"bash(tar:*)",
			"--mode",
			"default",
		]);
		expect(existsSync(join(dir, "inside.tar")), inside.stdout + inside.stderr).toBe(true);
	});

	it("an exact allow rule for ./build.sh does not cover a planted file whose name ends in a space bash keeps", async () => {
		const dir = await project();
		await writeFile(join(dir, "build.sh"), "#!/bin/sh\necho built\n", { mode: 0o755 });
		for (const blank of ["\u00a0", "\r", "\v", "\f"]) {
			// The repository ships the look-alike: a script whose name ends in the character.
			await writeFile(join(dir, `build.sh${blank}`), "#!/bin/sh\ntouch marker\n", { mode: 0o755 });
			const result = await runBashInProcess(dir, `./build.sh${blank}`, [
				"--allow",
				"bash(./build.sh)",
				"--mode",
				"default",
			]);
			expect(existsSync(join(dir, "marker")), `${JSON.stringify(blank)}: ${result.stdout}${result.stderr}`).toBe(false);
		}
		const exact = await runBashInProcess(dir, "./build.sh", ["--allow", "bash(./build.sh)", "--mode", "default"]);
		expect(exact.stdout).toContain("built");
	});

	it("a misspelt tool name in a rule is an error naming the tool meant", async () => {
		const dir = await project();
		const result = await runBash(dir, "rm victim", ["--deny", "bsah(rm:*)"]);
		expect(result.code).toBe(2);
		expect(result.stderr).toMatch(/bsah/);
		expect(result.stderr).toMatch(/did you mean "bash"/i);
		expect(existsSync(join(dir, "victim"))).toBe(true);
	});
});
