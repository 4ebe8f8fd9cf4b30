// Red-team tests: nothing a sandboxed command writes runs later on the host. Each plants code
// where git, a command hook or the next toolbelt session would run it outside the sandbox, through
// the built CLI as a user starts it (`toolbelt tool bash … --sandbox`), then does what the user
// does next (git status, a commit, a write with a PostToolUse hook, toolbelt in a subfolder) and
// checks that no marker appeared on the host. As root and as an unprivileged user.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { useVarTmpBase } from "./fixture-as-user.js";
import { plantCommand, runsLaterHost } from "./runs-later-host.js";

const unavailable = await sandboxUnavailableReason();
// direnv itself is optional: without it the test still checks that nothing it would load changed.
const direnv = ["/usr/bin/direnv", "/usr/local/bin/direnv", "/bin/direnv"].find((path) => existsSync(path));
const cli = new CliProcesses();
// Each test starts the CLI several times; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 180_000 });

// Outside /tmp (the sandbox's /tmp is its own, so only a process on the host can make a marker here).
const base = useVarTmpBase("toolbelt-runs-later-");
// Registered after the folder's: runs before its removal.
afterEach(() => {
	cli.killAll();
});

describe.skipIf(unavailable !== undefined).each(testUsers())("files that run later, as %s", (user: TestUser) => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	const { home, marker, host, git, repository, sandboxed, env } = runsLaterHost(user, cli, () => base());
	const fsmonitorConfig = () => `[core]\n\tfsmonitor = touch ${marker()}; false\n`;
	const hookScript = () => `#!/bin/sh\ntouch ${marker()}\n`;

	it("a config the repository includes (include.path = ../.gitconfig): a planted core.fsmonitor does not run", async () => {
		const repo = await repository(join(base(), "repo"));
		git(repo, "config", "include.path", "../.gitconfig");
		await sandboxed(repo, plantCommand(join(repo, ".gitconfig"), fsmonitorConfig()));
		git(repo, "status", "--porcelain");
		expect(existsSync(marker())).toBe(false);
	});

	it("a program the repository's config names by a workspace path (core.fsmonitor = tools/fsmonitor.sh): a rewritten one does not run", async () => {
		const repo = await repository(join(base(), "repo"));
		await mkdir(join(repo, "tools"), { recursive: true });
		await writeFile(join(repo, "tools", "fsmonitor.sh"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
		await handOver(base(), user);
		expect(git(repo, "config", "core.fsmonitor", "tools/fsmonitor.sh").status).toBe(0);
		// An alias the user set runs a script from the top of the work tree too.
		expect(git(repo, "config", "alias.lint", "!./tools/lint.sh").status).toBe(0);
		await sandboxed(
			repo,
			`${plantCommand(join(repo, "tools", "fsmonitor.sh"), hookScript())}; ${plantCommand(join(repo, "tools", "lint.sh"), hookScript())}`,
		);
		git(repo, "status", "--porcelain");
		git(repo, "lint");
		expect(existsSync(marker())).toBe(false);
	});

	it("a program a git config names further on (core.fsmonitor = sh tools/fsmonitor.sh, an alias's shell function): a rewritten one does not run", async () => {
		const repo = await repository(join(base(), "repo"));
		await handOver(base(), user);
		const settings: [string, string][] = [
			["core.fsmonitor", "sh tools/fsmonitor.sh"],
			["alias.lint", "!sh ./tools/lint.sh --fix"],
			["alias.check", '!f() { bash scripts/check.sh "$@"; }; f'],
		];
		for (const [key, value] of settings) expect(git(repo, "config", key, value).status).toBe(0);
		const plant = ["tools/fsmonitor.sh", "tools/lint.sh", "scripts/check.sh"]
			.map((path) => plantCommand(join(repo, path), hookScript()))
			.join("; ");
		await sandboxed(repo, plant);
		git(repo, "status", "--porcelain");
		git(repo, "lint");
		git(repo, "check");
		expect(existsSync(marker())).toBe(false);
	});

	it("a folder holding a protected program or hooks folder renamed away and made again: what it plants there does not run", async () => {
		const repo = await repository(join(base(), "repo"));
		await mkdir(join(repo, "tools", "hooks"), { recursive: true });
		await writeFile(join(repo, "tools", "fsmonitor.sh"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
		await handOver(base(), user);
		expect(git(repo, "config", "core.fsmonitor", "tools/fsmonitor.sh").status).toBe(0);
		expect(git(repo, "config", "core.hooksPath", "tools/hooks").status).toBe(0);
		const rename = `node -e "require('fs').renameSync('tools','moved')"`;
		const run = await sandboxed(
			repo,
			`${rename}; ${plantCommand(join(repo, "tools", "fsmonitor.sh"), hookScript())}; ${plantCommand(join(repo, "tools", "hooks", "pre-commit"), hookScript())}`,
		);
		git(repo, "status", "--porcelain");
		git(repo, "commit", "-q", "--allow-empty", "-m", "after");
		expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
	});

	it("a hooks folder inside the workspace named by the user's global config: a planted hook does not run", async () => {
		const repo = await repository(join(base(), "repo"));
		await writeFile(join(home(), ".gitconfig"), `[core]\n\thooksPath = ${join(repo, "tools", "hooks")}\n`);
		await handOver(base(), user);
		await sandboxed(repo, plantCommand(join(repo, "tools", "hooks", "pre-commit"), hookScript()));
		git(repo, "commit", "-q", "--allow-empty", "-m", "after");
		expect(existsSync(marker())).toBe(false);
	});

	it("a new nested repository (sub/.git) with core.fsmonitor: git in sub runs nothing, and the model is told", async () => {
		const repo = await repository(join(base(), "repo"));
		const run = await sandboxed(repo, `git init -q sub && git -C sub config core.fsmonitor "touch ${marker()}; false"`);
		git(join(repo, "sub"), "status", "--porcelain");
		expect(existsSync(marker())).toBe(false);
		expect(existsSync(join(repo, "sub", ".git"))).toBe(false);
		expect(readdirSync(join(repo, "sub")).some((name) => name.startsWith(".git.quarantined-"))).toBe(true);
		expect(run.stdout).toContain("sub/.git");
	});

	it("a folder made a repository without any .git (HEAD, objects/, refs/, a config with core.worktree): git there runs nothing", async () => {
		const repo = await repository(join(base(), "repo"));
		// A workspace that is no repository: its root itself can be made one.
		const plain = join(base(), "plain");
		await mkdir(plain, { recursive: true });
		await handOver(base(), user);
		const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker()}; false\n`;
		const plantBare = (folder: string) =>
			[
				plantCommand(join(folder, "HEAD"), "ref: refs/heads/main\n"),
				plantCommand(join(folder, "objects", "info", "keep"), "keep\n"),
				plantCommand(join(folder, "refs", "heads", "keep"), "keep\n"),
				plantCommand(join(folder, "config"), config),
			].join(" && ");
		const nested = await sandboxed(repo, plantBare(join(repo, "sub")));
		await sandboxed(plain, plantBare(plain));
		git(join(repo, "sub"), "status", "--porcelain");
		git(plain, "status", "--porcelain");
		expect(existsSync(marker()), "fsmonitor ran").toBe(false);
		expect(existsSync(join(repo, "sub", "HEAD"))).toBe(false);
		expect(existsSync(join(plain, "HEAD"))).toBe(false);
		expect(nested.stdout, nested.stderr).toContain("sub/HEAD");
	});

	it("a new repository in a folder .gitignore ignores (build/.git, node_modules/.git): git there runs nothing", async () => {
		const repo = await repository(join(base(), "repo"));
		await writeFile(join(repo, ".gitignore"), "build/\nnode_modules/\n");
		await mkdir(join(repo, "node_modules", "pkg"), { recursive: true });
		await handOver(base(), user);
		const run = await sandboxed(
			repo,
			["build", "node_modules"]
				.map((folder) => `git init -q ${folder} && git -C ${folder} config core.fsmonitor "touch ${marker()}; false"`)
				.join(" && "),
		);
		git(join(repo, "build"), "status", "--porcelain");
		git(join(repo, "node_modules", "pkg"), "status", "--porcelain");
		expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
		expect(run.stdout).toContain("build/.git");
	});

	it("a committed bare repository lacking refs/ (git keeps no empty folder) completed with refs/ and a config: git there runs nothing", async () => {
		const repo = await repository(join(base(), "repo"));
		const bare = join(repo, "fixtures", "bare");
		await mkdir(join(bare, "objects", "info"), { recursive: true });
		await writeFile(join(bare, "HEAD"), "ref: refs/heads/main\n");
		await writeFile(join(bare, "objects", "info", "keep"), "keep\n");
		await handOver(base(), user);
		expect(git(repo, "add", "-A").status).toBe(0);
		expect(git(repo, "commit", "-q", "-m", "fixture").status).toBe(0);
		const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker()}; false\n`;
		const run = await sandboxed(
			repo,
			`${plantCommand(join(bare, "refs", "heads", "keep"), "keep\n")}; ${plantCommand(join(bare, "config"), config)}`,
		);
		git(bare, "status", "--porcelain");
		expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
	});

	it("what an allowed .envrc loads (source_env_if_exists .envrc.local and nix/env.sh, dotenv): a planted one runs nothing at the next cd", async () => {
		const repo = await repository(join(base(), "repo"));
		await writeFile(
			join(repo, ".envrc"),
			"source_env_if_exists .envrc.local\ndotenv\nsource_env_if_exists nix/env.sh\n",
		);
		await writeFile(join(repo, ".env"), "GREETING=hello\n");
		await handOver(base(), user);
		if (direnv) expect(host(repo, direnv, ["allow", "."]).status).toBe(0);
		const hook = `touch ${marker()}\n`;
		const run = await sandboxed(
			repo,
			[
				plantCommand(join(repo, ".envrc.local"), hook),
				plantCommand(join(repo, ".env"), `BASH_ENV=${join(repo, "hook.sh")}\n`),
				plantCommand(join(repo, "hook.sh"), hook),
				plantCommand(join(repo, "nix", "env.sh"), hook),
			].join("; "),
		);
		if (direnv) host(repo, direnv, ["exec", ".", "bash", "-c", "true"]);
		expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
		expect(existsSync(join(repo, ".envrc.local"))).toBe(false);
		expect(existsSync(join(repo, "nix", "env.sh"))).toBe(false);
		expect(readFileSync(join(repo, ".env"), "utf8")).toBe("GREETING=hello\n");
	});

	it("a folder an allowed .envrc puts on PATH (PATH_add bin, export PATH=$PWD/tools:$PATH): a planted git or ls there runs nothing after the next cd", async () => {
		const repo = await repository(join(base(), "repo"));
		await writeFile(join(repo, ".envrc"), 'PATH_add bin\nexport PATH="$PWD/tools:$PATH"\n');
		await mkdir(join(repo, "bin"));
		await handOver(base(), user);
		if (direnv) expect(host(repo, direnv, ["allow", "."]).status).toBe(0);
		const run = await sandboxed(
			repo,
			`${plantCommand(join(repo, "bin", "git"), hookScript())}; ${plantCommand(join(repo, "tools", "ls"), hookScript())}`,
		);
		if (direnv) host(repo, direnv, ["exec", ".", "sh", "-c", "git --version; ls"]);
		expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
		expect(existsSync(join(repo, "bin", "git"))).toBe(false);
		expect(existsSync(join(repo, "tools", "ls"))).toBe(false);
		// The file tools may not put one there either, whatever the mode.
		const write = await cli.run(
			["tool", "write", JSON.stringify({ path: "bin/git", content: hookScript() }), "--mode", "yolo"],
			{
				cwd: repo,
				env: env(),
				user,
			},
		);
		expect(write.code, write.stdout).not.toBe(0);
	});

	it("a new .git file pointing to a planted git directory: git in that folder runs nothing", async () => {
		const repo = await repository(join(base(), "repo"));
		const gitDir = join(repo, "gitdirs", "evil");
		const command = [
			`git init -q --bare ${gitDir}`,
			`git --git-dir=${gitDir} config core.bare false`,
			`git --git-dir=${gitDir} config core.fsmonitor "touch ${marker()}; false"`,
			plantCommand(join(repo, "sub2", ".git"), `gitdir: ${gitDir}\n`),
		].join(" && ");
		await sandboxed(repo, command);
		git(join(repo, "sub2"), "status", "--porcelain");
		expect(existsSync(marker())).toBe(false);
	});

	it("an existing nested repository whose .git file points into the workspace: its git directory stays read-only", async () => {
		const repo = await repository(join(base(), "repo"));
		await mkdir(join(repo, "gitdirs"));
		await handOver(base(), user);
		const made = git(repo, "init", "-q", `--separate-git-dir=${join(repo, "gitdirs", "sub")}`, "sub");
		expect(made.status).toBe(0);
		await sandboxed(repo, plantCommand(join(repo, "gitdirs", "sub", "config"), fsmonitorConfig()));
		git(join(repo, "sub"), "status", "--porcelain");
		expect(existsSync(marker())).toBe(false);
	});

	it("an existing repository two levels down: its config stays read-only", async () => {
		const repo = await repository(join(base(), "repo"));
		await repository(join(repo, "vendor", "lib"));
		await sandboxed(repo, plantCommand(join(repo, "vendor", "lib", ".git", "config"), fsmonitorConfig()));
		git(join(repo, "vendor", "lib"), "status", "--porcelain");
		expect(existsSync(marker())).toBe(false);
	});

	it("the README's PostToolUse hook (npx prettier): a planted node_modules/.bin/prettier does not run on the host", async () => {
		const repo = await repository(join(base(), "repo"));
		await writeFile(join(repo, "package.json"), "{}\n");
		await mkdir(join(home(), ".toolbelt"), { recursive: true });
		const command = 'npx prettier --write "$(jq -r .tool_input.file_path)"';
		const hooks = {
			PostToolUse: [{ matcher: "write|edit", hooks: [{ type: "command", command, onError: "continue" }] }],
		};
		await writeFile(join(home(), ".toolbelt", "settings.json"), JSON.stringify({ hooks }));
		await handOver(base(), user);
		const prettier = `#!/bin/sh\ntouch ${marker()}\ntouch "$PWD/ran-inside"\n`;
		await sandboxed(repo, plantCommand(join(repo, "node_modules", ".bin", "prettier"), prettier));
		const write = await cli.run(["tool", "write", JSON.stringify({ path: "a.js", content: "x\n" }), "--sandbox"], {
			cwd: repo,
			env: env(),
			user,
		});
		expect(write.code).toBe(0);
		expect(existsSync(marker())).toBe(false);
		// The hook did run: inside the sandbox, where the workspace is writable.
		expect(existsSync(join(repo, "ran-inside"))).toBe(true);
	});

	it("another agent's settings a command makes in a subfolder (sub/.claude/settings.json with a hook) are renamed away, and the model is told", async () => {
		const repo = await repository(join(base(), "repo"));
		const settings = JSON.stringify({
			hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${marker()}` }] }] },
		});
		const run = await sandboxed(repo, plantCommand(join(repo, "pkg", ".claude", "settings.json"), settings));
		// Claude Code started in pkg would run that hook outside any sandbox.
		expect(existsSync(join(repo, "pkg", ".claude"))).toBe(false);
		expect(readdirSync(join(repo, "pkg")).some((name) => name.startsWith(".claude.quarantined-"))).toBe(true);
		expect(run.stdout).toContain("pkg/.claude");
	});

	it("trustedProjects with a glob: a .toolbelt/settings.json a sandboxed command wrote in a subfolder is not trusted", async () => {
		const repo = await repository(join(base(), "repo"));
		await mkdir(join(home(), ".toolbelt"), { recursive: true });
		await writeFile(join(home(), ".toolbelt", "settings.json"), JSON.stringify({ trustedProjects: [`${base()}/**`] }));
		// One subfolder without settings, one whose .toolbelt folder exists already.
		await mkdir(join(repo, "pkg"), { recursive: true });
		await mkdir(join(repo, "lib", ".toolbelt", "hooks"), { recursive: true });
		await handOver(base(), user);
		const settings = JSON.stringify({
			hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch ${marker()}` }] }] },
		});
		for (const folder of ["pkg", "lib"]) {
			await sandboxed(repo, plantCommand(join(repo, folder, ".toolbelt", "settings.json"), settings));
			await cli.run(["tool", "ls", JSON.stringify({ path: "." })], {
				cwd: join(repo, folder),
				env: env(),
				user,
			});
			expect(existsSync(marker()), folder).toBe(false);
		}
	});
});
