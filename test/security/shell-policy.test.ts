import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { startUserMcpServer, type UserMcpServer } from "../cli/helpers/user-mcp-server.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { messageCatalog } from "./fixtures/message-catalog.js";
import { gitIdentity } from "./git-identity.js";

/**
 * Red-team tests of the shell policy (issue 25) against the built CLI as a user starts it, as root
 * and as an unprivileged user: forms of bash that ran `rm` under `--deny 'bash(rm:*)'` on the
 * hand-written splitter, programs that run other programs from their options, and options that
 * write files under an allow rule for a "read-only" command. Effects only: the victim file
 * survives, the file outside the workspace is not written, the marker is not made.
 *
 * One `toolbelt mcp` per user and rule set serves its cases (a CLI start per case cost ~40 s a
 * run); each case starts from the same files, put back before it.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** Writes a git config whose fsmonitor (run by `git status`) removes the victim, to the file named after it. */
const plantGitConfig = "printf '[core]\\n\\tfsmonitor = rm victim\\n' >";

describe.each(testUsers())("the shell policy holds (built CLI, as %s)", (user: TestUser) => {
	const processes = new CliProcesses();
	let root = "";
	const dir = () => join(root, "project");
	const home = () => join(root, "home");
	const outside = () => join(root, "outside");
	const env = () => cleanEnv({ HOME: home(), ...gitIdentity, npm_config_update_notifier: "false" });
	const servers: UserMcpServer[] = [];
	let denyRm: UserMcpServer;
	let allowReadOnly: UserMcpServer;

	/** The files every case starts from: the workspace's victim and list, the outside file, an empty home. */
	async function reset(): Promise<void> {
		for (const folder of [dir(), home(), outside()]) await mkdir(folder, { recursive: true });
		const made = [
			...[
				"marker",
				"env.sh",
				"note.txt",
				".gitconfig",
				"cfg",
				"s.sh",
				"ls",
				"bin",
				"x.c",
				"x",
				"g",
				"dst",
				"t",
				"c.txt",
			].map((name) => join(dir(), name)),
			...["log.txt", "sorted.txt", "found.txt", "copied.txt", "clone", "repo"].map((name) => join(outside(), name)),
			join(home(), ".bashrc"),
		];
		for (const path of made) await rm(path, { force: true, recursive: true });
		await writeFile(join(dir(), "victim"), "keep me\n");
		await writeFile(join(dir(), "list"), "victim\n");
		await writeFile(join(outside(), "kept.txt"), "keep me\n");
		await writeFile(join(outside(), "secret.txt"), "OUTSIDE-SECRET\n");
		await mkdir(join(outside(), "sub"), { recursive: true });
		// A link into a folder outside: `link/../x` is `outside/x` to the kernel, `x` to a lexical resolve.
		await rm(join(dir(), "link"), { force: true });
		await symlink(join(outside(), "sub"), join(dir(), "link"));
		await writeFile(join(dir(), "secret.txt"), "decoy\n");
		// Files named `$`, `==` and `s$`, links out: the words bash passes, which the grammar gives no word node.
		for (const name of ["$", "==", "s$"]) {
			await rm(join(dir(), name), { force: true });
			await symlink(join(outside(), "secret.txt"), join(dir(), name));
		}
		await writeFile(join(dir(), "s"), "decoy\n");
		// A file whose name is one of find's actions, for a glob to match.
		await writeFile(join(dir(), "-fprint"), "");
		// `a=~/x` is expanded by bash as an assignment's value is: `a=` + the home's path, through a
		// folder `a=` (or `a=x:`) of the workspace and a link in it named after the home's first folder.
		await writeFile(join(home(), "secret.txt"), "OUTSIDE-SECRET\n");
		const top = home().split("/")[1] as string;
		for (const folder of ["a=", "a=x:"]) {
			await rm(join(dir(), folder), { recursive: true, force: true });
			await mkdir(join(dir(), folder));
			await symlink(`/${top}`, join(dir(), folder, top));
		}
		// A message catalog bash reads for `$"…"` (C.UTF-8 is a locale every glibc has).
		await mkdir(join(dir(), "locale", "C.utf8", "LC_MESSAGES"), { recursive: true });
		await writeFile(join(dir(), "locale", "C.utf8", "LC_MESSAGES", "t.mo"), messageCatalog({ hi: "$(rm victim)" }));
		await handOver(root, user);
	}

	beforeAll(async () => {
		ensureBuiltCli();
		root = await mkdtemp(join(tmpdir(), "toolbelt-shell-policy-"));
		await reset();
		execFileSync("git", ["init", "-q"], { cwd: dir(), env: env() });
		await handOver(root, user);
		const start = (flags: string[]) => startUserMcpServer({ user, cwd: dir(), env: env(), flags });
		denyRm = await start(["--deny", "bash(rm:*)"]);
		servers.push(denyRm);
		// Every rule of the cases below at once: none of them may cover any case's write or program.
		const rules = [
			"bash(git diff:*)",
			"bash(git log:*)",
			"bash(sort:*)",
			"bash(find:*)",
			"bash(sed:*)",
			"bash(git clone:*)",
			"bash(git init:*)",
			"bash(truncate:*)",
		];
		allowReadOnly = await start(["--mode", "default", ...rules.flatMap((rule) => ["--allow", rule])]);
		servers.push(allowReadOnly);
	});
	afterAll(async () => {
		for (const server of servers) await server.close();
		await rm(root, { recursive: true, force: true });
	});
	afterEach(() => processes.killAll());

	const bash = (server: UserMcpServer, command: string) => server.call("bash", { command });

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
		// Bash translates `$"…"` from the catalog TEXTDOMAINDIR names and expands the translation as "…".
		// Bash ends a heredoc at its word with the quotes removed (EOF); the grammar read on to the word as written.
		["a heredoc delimiter quoted in part", 'cat <<E"O"F\nEOF\nrm victim\nE"O"F'],
		["a heredoc delimiter with an empty $'…'", "cat <<E$''OF\nEOF\nrm victim\nE$''OF"],
		// `{name}>f` assigns name the descriptor: an array element's subscript is arithmetic, BASH_ENV is code.
		["a descriptor variable with a subscript", "x='a[$(rm victim)]'; : {a[x]}>/dev/null"],
		[
			"a descriptor variable named BASH_ENV, exported by set -a",
			"set -a; : {BASH_ENV}>/dev/null; echo 'rm victim' > \"$BASH_ENV\"; bash -c true",
		],
		// The grammar leaves an unquoted heredoc's backticks in its text; bash runs them.
		["backticks in an unquoted heredoc", "cat <<EOF\n`rm victim`\nEOF"],
		["a translated string", 'TEXTDOMAINDIR=$PWD/locale TEXTDOMAIN=t; LC_ALL=C.UTF-8\necho $"hi"'],
		// Variables that decide which code runs: where configuration, programs and shells are found.
		["HOME for git's config", `${plantGitConfig} .gitconfig; HOME=. git status`],
		[
			"XDG_CONFIG_HOME for git's config",
			`mkdir -p cfg/git; ${plantGitConfig} cfg/git/config; XDG_CONFIG_HOME=cfg git status`,
		],
		["export HOME", `${plantGitConfig} .gitconfig; export HOME=$PWD; git status`],
		["read HOME", `${plantGitConfig} .gitconfig; read HOME <<< "$PWD"; git status`],
		["printf -v HOME", `${plantGitConfig} .gitconfig; printf -v HOME %s "$PWD"; git status`],
		["env HOME=", `${plantGitConfig} .gitconfig; env HOME=. git status`],
		[
			"SHELL for flock -c",
			"printf '#!/bin/sh\\nrm victim\\n' > s.sh; chmod +x s.sh; SHELL=$PWD/s.sh flock list -c true",
		],
		["PATH=. before a planted ls", "ln -s /bin/rm ls; PATH=. ls victim"],
		["PATH=./bin:$PATH", "mkdir -p bin; ln -s /bin/rm bin/ls; PATH=./bin:$PATH ls victim"],
		["CC for make's built-in rules", "printf 'int main(){return 0;}' > x.c; CC='rm victim;' make x"],
		// A wrapper's own word that bash makes several: the reader took `victim` for the program.
		["a brace expansion as timeout's duration", "timeout {5,rm} victim"],
		["a brace expansion as nice's value", "nice -n {5,rm} victim"],
		// cp writes a protected path as surely as a redirection does: a nested repository's config.
		[
			"cp onto a nested repository's config",
			"printf '[core]\\n\\tfsmonitor = rm ../victim\\n' > c.txt; git init -q sub; cp c.txt sub/.git/config; git -C sub status",
		],
		// compgen expands its -W word list once more as it runs.
		["compgen -W", "compgen -W '$(rm victim)' x"],
		// Programs that run commands from their input or arguments.
		["ed reading commands from its input", "printf '!rm victim\\nq\\n' | ed -s list"],
		["vim reading keys from its input", "printf ':!rm victim\\n:q!\\n' | vim -n list"],
		["sqlite3's .shell", "sqlite3 :memory: '.shell rm victim'"],
		["zip -TT", "zip -q -T -TT 'rm victim #' z.zip list"],
		// git options that choose a repository, or put programs into the one they make.
		[
			"git --git-dir naming a planted repository",
			`${plantGitConfig} c.txt; git init -q --bare g; cp c.txt g/config; git --git-dir=g --work-tree=. status`,
		],
		["git clone -u", "git clone -q -u 'rm victim; git-upload-pack' . dst"],
		["git clone -c, then status", "git clone -q -c core.fsmonitor='rm ../victim' . dst; git -C dst status"],
		[
			"git clone --template with a post-checkout hook",
			"mkdir -p t/hooks; printf '#!/bin/sh\\nrm ../victim\\n' > t/hooks/post-checkout; chmod +x t/hooks/post-checkout; git commit -q --allow-empty -m x; git clone -q --template=t . dst",
		],
	];

	it.each(denied)("deny bash(rm:*) holds against %s", async (_name, command) => {
		await reset();
		const result = await bash(denyRm, command);
		expect(existsSync(join(dir(), "victim")), `${command}\n${result.text}`).toBe(true);
	});

	it("deny bash(rm:*) holds against an export of a quoted BASH_ENV=…", async () => {
		await reset();
		// A quoted assignment to a declaration builtin assigns as an unquoted one does.
		const command = `echo 'rm victim' > env.sh; export "BASH_ENV=${join(dir(), "env.sh")}"; bash -c true; echo done`;
		const result = await bash(denyRm, command);
		expect(existsSync(join(dir(), "victim")), `${command}\n${result.text}`).toBe(true);
	});

	it("deny bash(rm:*) holds against rg --pre", async () => {
		await reset();
		// ripgrep runs the --pre program on each file it searches: here `rm victim`.
		const command = `${rgPath} --pre rm x victim; echo done`;
		const result = await bash(denyRm, command);
		expect(existsSync(join(dir(), "victim")), `${command}\n${result.text}`).toBe(true);
	});

	/** Commands that an allow rule for a "read-only" program let write outside the workspace, or run another program. */
	const allowed: [string, string, () => string, () => boolean][] = [
		[
			"git diff --output to ~/.bashrc",
			"bash(git diff:*)",
			() => "git diff --output=$HOME/.bashrc",
			() => !existsSync(join(home(), ".bashrc")),
		],
		[
			"git log --output",
			"bash(git log:*)",
			() => `git log --output=${join(outside(), "log.txt")}`,
			() => !existsSync(join(outside(), "log.txt")),
		],
		[
			"sort -o",
			"bash(sort:*)",
			() => `sort -o ${join(outside(), "sorted.txt")} list`,
			() => !existsSync(join(outside(), "sorted.txt")),
		],
		[
			"find -fprintf",
			"bash(find:*)",
			() => `find . -maxdepth 0 -fprintf ${join(outside(), "found.txt")} planted`,
			() => !existsSync(join(outside(), "found.txt")),
		],
		[
			"sed's w command",
			"bash(sed:*)",
			() => `sed -n 'w ${join(outside(), "copied.txt")}' list`,
			() => !existsSync(join(outside(), "copied.txt")),
		],
		[
			"sed -i",
			"bash(sed:*)",
			() => `sed -i s/keep/lose/ ${join(outside(), "kept.txt")}`,
			() => readFileSync(join(outside(), "kept.txt"), "utf8") === "keep me\n",
		],
		[
			"find -exec",
			"bash(find:*)",
			() => "find . -name victim -exec rm {} \\;",
			() => existsSync(join(dir(), "victim")),
		],
		[
			"find -delete",
			"bash(find:*)",
			() => `find ${outside()} -name kept.txt -delete`,
			() => existsSync(join(outside(), "kept.txt")),
		],
		["sed's e command", "bash(sed:*)", () => "sed -n '1e touch marker' list", () => !existsSync(join(dir(), "marker"))],
		[
			"truncate of a file outside",
			"bash(truncate:*)",
			() => `truncate -s 0 ${join(outside(), "kept.txt")}`,
			() => readFileSync(join(outside(), "kept.txt"), "utf8") === "keep me\n",
		],
		[
			"git clone into a folder outside",
			"bash(git clone:*)",
			() => `git clone -q . ${join(outside(), "clone")}`,
			() => !existsSync(join(outside(), "clone")),
		],
		[
			"git init of a folder outside",
			"bash(git init:*)",
			() => `git init -q ${join(outside(), "repo")}`,
			() => !existsSync(join(outside(), "repo")),
		],
		[
			"find with a brace expansion that bash makes -delete",
			"bash(find:*)",
			() => `find ${outside()} -name kept.txt {-delete,}`,
			() => existsSync(join(outside(), "kept.txt")),
		],
		[
			"find with a glob that a planted file ./-fprint makes -fprint",
			"bash(find:*)",
			() => `find . -maxdepth 0 -fprin[t] ${join(outside(), "found.txt")}`,
			() => !existsSync(join(outside(), "found.txt")),
		],
		[
			"sort -o through a link's ..",
			"bash(sort:*)",
			() => "sort -o link/../sorted.txt list",
			() => !existsSync(join(outside(), "sorted.txt")),
		],
	];

	it.each(allowed)("an allow rule does not cover %s (%s)", async (_name, _rule, command, holds) => {
		await reset();
		const text = command();
		const result = await bash(allowReadOnly, text);
		expect(holds(), `${text}\n${result.text}`).toBe(true);
	});

	// A link's `..` is the kernel's (the link's target's parent); `$` and `==` are words bash passes.
	const outsideReads = ["cat link/../secret.txt", "grep -r SECRET link/..", "ls link/..", "cat $ list", "cat == list"];
	it.each([...outsideReads, "cat s$", 'cat "s$"', "cat a=~/secret.txt", "cat a=x:~/secret.txt"])(
		"a read-only command does not read outside unasked: %s",
		async (command) => {
			await reset();
			const result = await bash(allowReadOnly, command);
			expect(result.text, command).not.toMatch(/OUTSIDE-SECRET|kept\.txt/);
			expect(result.isError, `${command}\n${result.text}`).toBe(true);
		},
	);

	it("positive control: a read-only command in the workspace runs unasked", async () => {
		await reset();
		const inside = await bash(allowReadOnly, "cat ./secret.txt");
		expect(inside.text).toContain("decoy");
	});

	it("positive controls: a pipeline and a heredoc to a file run under the deny rule", async () => {
		await reset();
		const pipeline = await bash(denyRm, "echo fine | tr a-z A-Z && git diff --stat");
		expect(pipeline.text).toContain("FINE");
		const heredoc = await bash(denyRm, "cat <<EOF > note.txt\nhello $USER\nEOF");
		expect(existsSync(join(dir(), "note.txt")), heredoc.text).toBe(true);
	});

	it("positive controls: a loop runs in yolo mode without deny rules; an allowed git diff runs", async () => {
		await reset();
		const loop = await processes.run(
			["tool", "bash", JSON.stringify({ command: "for f in a b; do touch loop-$f; done" })],
			{ cwd: dir(), env: env(), user },
		);
		expect(existsSync(join(dir(), "loop-b")), loop.stdout + loop.stderr).toBe(true);
		const allowedRun = await bash(allowReadOnly, "git diff --stat");
		expect(allowedRun.isError, allowedRun.text).toBe(false);
	});
});
