// Red-team tests: files a program the user starts later runs without being asked to, beyond git.
// A virtual environment's startup files (a `.pth` with an `import` line, `sitecustomize.py`) run at
// every start of its interpreter, which an editor starts on opening the folder: with the real
// Python. A subfolder's editor settings (`.vscode/tasks.json` with `runOn: folderOpen`) run when
// that subfolder is opened alone: no editor here, so the files are checked as the editor reads
// them. As root and as an unprivileged user.
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { useVarTmpBase } from "./fixture-as-user.js";
import { plantCommand, runsLaterHost } from "./runs-later-host.js";

const unavailable = await sandboxUnavailableReason();
// The system's Python, which every user may run (a version manager's shim may sit in root's home).
const python3 = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].find((path) => existsSync(path));
const cli = new CliProcesses();
vi.setConfig({ testTimeout: 180_000 });

const base = useVarTmpBase("toolbelt-startup-files-");
// Registered after the folder's: runs before its removal.
afterEach(() => {
	cli.killAll();
});

describe.skipIf(unavailable !== undefined).each(testUsers())("startup files, as %s", (user: TestUser) => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	const { marker, host, repository, sandboxed } = runsLaterHost(user, cli, () => base());

	it.skipIf(python3 === undefined)(
		"a .venv's startup files (a new or grown .pth, sitecustomize.py in site-packages or a folder a .pth names): the venv's python runs nothing",
		async () => {
			const repo = await repository(join(base(), "repo"));
			await writeFile(join(repo, ".gitignore"), ".venv/\n");
			await mkdir(join(repo, "src"));
			await handOver(base(), user);
			const venv = host(repo, python3 as string, ["-m", "venv", "--without-pip", ".venv"]);
			expect(venv.status, venv.stderr).toBe(0);
			const lib = join(repo, ".venv", "lib");
			const sitePackages = join(lib, readdirSync(lib).find((name) => name.startsWith("python")) ?? "", "site-packages");
			// As an editable install leaves it: the project's src/ on sys.path.
			await writeFile(join(sitePackages, "_editable_project.pth"), `${join(repo, "src")}\n`);
			await handOver(base(), user);
			const python = join(repo, ".venv", "bin", "python");
			expect(host(repo, python, ["-c", "pass"]).status).toBe(0);
			const code = `import os; os.close(os.open(${JSON.stringify(marker())}, os.O_CREAT | os.O_WRONLY))\n`;
			const run = await sandboxed(
				repo,
				[
					plantCommand(join(sitePackages, "planted.pth"), code),
					plantCommand(join(sitePackages, "_editable_project.pth"), code),
					plantCommand(join(sitePackages, "sitecustomize.py"), code),
					plantCommand(join(repo, "src", "sitecustomize.py"), code),
				].join("; "),
			);
			const started = host(repo, python, ["-c", "pass"]);
			expect(existsSync(marker()), run.stdout + run.stderr + started.stderr).toBe(false);
			expect(run.stdout).toContain("planted.pth");
			expect(readdirSync(sitePackages).some((name) => name.startsWith("planted.pth.quarantined-"))).toBe(true);
		},
	);

	it("a subfolder's editor settings (pkg/.vscode/tasks.json running on folder open, pkg/.devcontainer): renamed away, and the model is told", async () => {
		const repo = await repository(join(base(), "repo"));
		await mkdir(join(repo, "app", ".idea"), { recursive: true });
		await writeFile(join(repo, "app", ".idea", "workspace.xml"), "<project/>\n");
		await handOver(base(), user);
		const tasks = JSON.stringify({
			version: "2.0.0",
			tasks: [{ label: "setup", type: "shell", command: `touch ${marker()}`, runOptions: { runOn: "folderOpen" } }],
		});
		const devcontainer = JSON.stringify({ image: "debian", postCreateCommand: `touch ${marker()}` });
		const run = await sandboxed(
			repo,
			[
				plantCommand(join(repo, "pkg", ".vscode", "tasks.json"), tasks),
				plantCommand(join(repo, "pkg", ".devcontainer", "devcontainer.json"), devcontainer),
				plantCommand(join(repo, "app", ".idea", "workspace.xml"), "<planted/>\n"),
			].join("; "),
		);
		expect(existsSync(join(repo, "pkg", ".vscode")), run.stdout + run.stderr).toBe(false);
		expect(existsSync(join(repo, "pkg", ".devcontainer"))).toBe(false);
		expect(readdirSync(join(repo, "pkg")).some((name) => name.startsWith(".vscode.quarantined-"))).toBe(true);
		// The command failed (the .idea file is read-only): the notice comes with its error.
		expect(run.stdout + run.stderr).toContain("pkg/.vscode");
		// An existing one is kept read-only.
		expect(await readFile(join(repo, "app", ".idea", "workspace.xml"), "utf8")).toBe("<project/>\n");
	});
});
