// Red-team tests: git hook managers read the work tree at every commit to learn what to run, so a
// sandboxed command that rewrote what they read would run code on the host at the user's next
// `git commit`. With the real managers (lefthook and husky from the npm registry, pre-commit from
// Debian: .ci/run installs them), installed the way their users install them. As root and as an
// unprivileged user.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { useVarTmpBase } from "./fixture-as-user.js";
import { plantCommand, runsLaterHost } from "./runs-later-host.js";

const unavailable = await sandboxUnavailableReason();
const onPath = (name: string) =>
	(process.env.PATH ?? "").split(delimiter).some((folder) => folder !== "" && existsSync(join(folder, name)));
const cli = new CliProcesses();
vi.setConfig({ testTimeout: 180_000 });

const base = useVarTmpBase("toolbelt-hook-managers-");
// Registered after the folder's: runs before its removal.
afterEach(() => {
	cli.killAll();
});

describe.skipIf(unavailable !== undefined).each(testUsers())("git hook managers, as %s", (user: TestUser) => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	const { marker, host, git, repository, sandboxed } = runsLaterHost(user, cli, () => base());
	const hookScript = () => `#!/bin/sh\ntouch ${marker()}\n`;

	it.skipIf(!onPath("lefthook"))(
		"lefthook (lefthook.yml naming ./scripts/lint.sh): a new lefthook-local.yml, .lefthook.yml or a rewritten script runs nothing at the next commit",
		async () => {
			const repo = await repository(join(base(), "repo"));
			await writeFile(
				join(repo, "lefthook.toml"),
				'[pre-commit.commands.lint]\nrun = "./scripts/lint.sh"\n[pre-commit.commands.sub]\nroot = "web/"\nrun = "sh check.sh"\n',
			);
			await mkdir(join(repo, "scripts"));
			await mkdir(join(repo, "web"));
			await writeFile(join(repo, "scripts", "lint.sh"), "#!/bin/sh\ntrue\n", { mode: 0o755 });
			await writeFile(join(repo, "web", "check.sh"), "true\n");
			await handOver(base(), user);
			const install = host(repo, "lefthook", ["install"]);
			expect(install.status, install.stdout + install.stderr).toBe(0);
			const job = `pre-commit:\n  commands:\n    planted:\n      run: touch ${marker()}\n`;
			const run = await sandboxed(
				repo,
				[
					plantCommand(join(repo, "lefthook-local.yml"), job),
					// .yml comes before .toml in lefthook's search: a new .lefthook.yml would be the config.
					plantCommand(join(repo, ".lefthook.yml"), job),
					plantCommand(join(repo, "scripts", "lint.sh"), hookScript()),
					plantCommand(join(repo, "web", "check.sh"), `touch ${marker()}\n`),
				].join("; "),
			);
			const commit = git(repo, "commit", "-q", "--allow-empty", "-m", "after");
			expect(commit.stderr + commit.stdout).not.toContain("planted");
			expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
		},
	);

	it.skipIf(!onPath("pre-commit"))(
		"pre-commit (a repo: local hook, entry: scripts/check.sh): a rewritten script runs nothing at the next commit",
		async () => {
			const repo = await repository(join(base(), "repo"));
			await mkdir(join(repo, "scripts"));
			await writeFile(join(repo, "scripts", "check.sh"), "#!/bin/sh\ntrue\n", { mode: 0o755 });
			const config = [
				"repos:",
				"  - repo: local",
				"    hooks:",
				"      - id: check",
				"        name: check",
				"        entry: scripts/check.sh",
				"        language: script",
				"        pass_filenames: false",
				"        always_run: true",
				"      - id: tidy",
				"        name: tidy",
				"        entry: sh tools/tidy.sh",
				"        language: system",
				"        pass_filenames: false",
				"        always_run: true",
				"",
			].join("\n");
			await writeFile(join(repo, ".pre-commit-config.yaml"), config);
			await mkdir(join(repo, "tools"));
			await writeFile(join(repo, "tools", "tidy.sh"), "true\n");
			await handOver(base(), user);
			expect(git(repo, "add", "-A").status).toBe(0);
			// pre-commit keeps its store in the user's cache; the tests' shared one is not theirs to write.
			const store = { PRE_COMMIT_HOME: join(base(), "home", "pre-commit") };
			const install = host(repo, "pre-commit", ["install"], store);
			expect(install.status, install.stdout + install.stderr).toBe(0);
			const run = await sandboxed(
				repo,
				`${plantCommand(join(repo, "scripts", "check.sh"), hookScript())}; ${plantCommand(join(repo, "tools", "tidy.sh"), `touch ${marker()}\n`)}`,
			);
			// pre-commit sets unstaged changes aside while its hooks run: the user commits the session's work with -a.
			const commit = host(repo, "git", ["commit", "-q", "-a", "-m", "after"], store);
			expect(commit.status, commit.stdout + commit.stderr).toBe(0);
			expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
		},
	);

	it.skipIf(!onPath("husky"))(
		"husky 9 in a subfolder (core.hooksPath = frontend/.husky/_): a planted frontend/.husky/pre-commit runs nothing at the next commit",
		async () => {
			const repo = await repository(join(base(), "repo"));
			await mkdir(join(repo, "frontend", ".husky"), { recursive: true });
			await writeFile(join(repo, "frontend", ".husky", "commit-msg"), "true\n");
			await handOver(base(), user);
			// As a monorepo's prepare script does it: from the top, naming the subfolder.
			const install = host(repo, "husky", ["frontend/.husky"]);
			expect(install.status, install.stdout + install.stderr).toBe(0);
			const run = await sandboxed(
				repo,
				`${plantCommand(join(repo, "frontend", ".husky", "pre-commit"), `touch ${marker()}\n`)}; ${plantCommand(join(repo, "frontend", ".husky", "commit-msg"), `touch ${marker()}\n`)}`,
			);
			git(repo, "commit", "-q", "--allow-empty", "-m", "after");
			expect(existsSync(marker()), run.stdout + run.stderr).toBe(false);
		},
	);
});
