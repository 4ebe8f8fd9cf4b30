import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, readFile, rmdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assertNoSymbolicLinks, hooksPathOf, planProtectedPaths } from "../../src/safety/sandbox/protected-paths.js";
import { createSandbox, SandboxUnavailableError } from "../../src/safety/sandbox.js";
import { createBashTool } from "../../src/tools/bash.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "./run-calls.js";

const tempDir = useTempDir();

const unavailable = await sandboxUnavailableReason();

describe("hooksPathOf", () => {
	it("reads core.hooksPath as git does: section and key in any case, quotes, comments, the last one wins", () => {
		expect(hooksPathOf("[core]\n\thooksPath = .husky\n")).toBe(".husky");
		expect(hooksPathOf('[Core]\n  HOOKSPATH = "hooks dir" ; comment\n')).toBe("hooks dir");
		expect(hooksPathOf("[core]\nhooksPath = a\n[user]\nhooksPath = b\n[core]\nhooksPath = c\n")).toBe("c");
		expect(hooksPathOf('[remote "x"]\nhooksPath = no\n')).toBeUndefined();
		expect(hooksPathOf("")).toBeUndefined();
	});
});

describe("planProtectedPaths", () => {
	it("lists every auto-run entry of each root, what a .git file points to, and core.hooksPath", async () => {
		const root = join(tempDir(), "root");
		await mkdir(join(root, "gitdirs", "main"), { recursive: true });
		await writeFile(join(root, ".git"), "gitdir: gitdirs/main\n");
		await writeFile(join(root, "gitdirs", "main", "config"), "[core]\n\thooksPath = tools/hooks\n");
		await mkdir(join(root, ".vscode"));
		await writeFile(join(root, ".vscode", "tasks.json"), "{}");
		const plan = planProtectedPaths({ roots: [root], writablePaths: [], homeDir: join(tempDir(), "home") });
		for (const entry of [".git", ".toolbelt", ".vscode", ".idea", ".devcontainer", ".envrc", ".claude", ".husky"]) {
			expect(plan.readOnly).toContain(join(root, entry));
		}
		expect(plan.readOnly).toContain(join(root, "gitdirs", "main"));
		// The hooks folder and its parent are missing: the highest missing folder is kept read-only,
		// so a command can make neither the folder nor a hook in it.
		expect(plan.readOnly).toContain(join(root, "tools"));
		expect(plan.mountPoints).toContainEqual({ path: join(root, "tools"), kind: "directory" });
		// Missing or empty entries need a mount point; the pointer file and a non-empty folder do not.
		const mountPoints = plan.mountPoints.map((point) => point.path);
		expect(mountPoints).toContain(join(root, ".idea"));
		expect(plan.mountPoints.find((point) => point.path === join(root, ".envrc"))?.kind).toBe("file");
		expect(mountPoints).not.toContain(join(root, ".git"));
		expect(mountPoints).not.toContain(join(root, ".vscode"));
	});

	it("leaves out a path the user named in writablePaths", async () => {
		const root = join(tempDir(), "root");
		await mkdir(root);
		const plan = planProtectedPaths({
			roots: [root],
			writablePaths: [join(root, ".vscode")],
			homeDir: tempDir(),
		});
		expect(plan.readOnly).not.toContain(join(root, ".vscode"));
		expect(plan.readOnly).toContain(join(root, ".git"));
	});

	it("refuses a protected entry that is a symbolic link, naming it", async () => {
		const root = join(tempDir(), "root");
		await mkdir(join(root, "elsewhere"), { recursive: true });
		await symlink("elsewhere", join(root, ".vscode"));
		const error = (() => {
			try {
				return planProtectedPaths({ roots: [root], writablePaths: [], homeDir: tempDir() });
			} catch (caught) {
				return caught;
			}
		})();
		expect(error).toBeInstanceOf(SandboxUnavailableError);
		expect((error as Error).message).toContain(`${join(root, ".vscode")} read-only: it is a symbolic link`);
	});
});

describe("assertNoSymbolicLinks", () => {
	it("refuses a protected path with a symbolic link on the way to it, naming the link", async () => {
		const root = join(tempDir(), "root");
		await mkdir(join(root, "real", "hooks"), { recursive: true });
		await symlink("real", join(root, "tools"));
		expect(() => assertNoSymbolicLinks([join(root, "real", "hooks")])).not.toThrow();
		expect(() => assertNoSymbolicLinks([join(root, "tools", "hooks")])).toThrow(
			`${join(root, "tools")} read-only: it is a symbolic link`,
		);
	});
});

describe.skipIf(unavailable !== undefined)("protected paths under real bwrap", () => {
	async function bashIn(root: string, writablePaths: string[] = []) {
		const sandbox = await createSandbox({ writableRoots: [root], writablePaths, homeDir: join(tempDir(), "home") });
		return [createBashTool(root, { operations: sandbox.wrap(localShellOperations) })];
	}

	it("a linked worktree: the .git pointer file and the git dir it names stay read-only", async () => {
		const root = join(tempDir(), "root");
		await mkdir(join(root, "gitdirs"), { recursive: true });
		execFileSync("git", ["init", "-q", "--separate-git-dir", join(root, "gitdirs", "main"), root]);
		const before = await readFile(join(root, ".git"), "utf8");
		const tools = await bashIn(root);
		for (const command of [
			"echo 'gitdir: /elsewhere' > .git",
			"rm -f .git",
			"git config core.fsmonitor 'touch x'",
			"echo x > gitdirs/main/config",
		]) {
			const message = await runCall(tools, {}, "bash", { command });
			expect(message.isError, command).toBe(true);
		}
		expect(await readFile(join(root, ".git"), "utf8")).toBe(before);
		expect(await readFile(join(root, "gitdirs", "main", "config"), "utf8")).not.toContain("fsmonitor");
	});

	it("a symlinked .vscode makes the call refuse with the reason; naming it in writablePaths lets it through", async () => {
		const root = join(tempDir(), "root");
		await mkdir(join(root, "elsewhere"), { recursive: true });
		const tools = await bashIn(root);
		// The sandbox keeps an empty .vscode as a mount point while it lives; the user replaces it.
		await rmdir(join(root, ".vscode"));
		await symlink("elsewhere", join(root, ".vscode"));
		const refused = await runCall(tools, {}, "bash", { command: "echo ran" });
		expect(refused.isError).toBe(true);
		expect(textOf(refused)).toMatch(/\.vscode read-only: it is a symbolic link.*not run/s);
		expect(textOf(refused)).not.toContain("ran\n");
		const allowed = await runCall(await bashIn(root, [join(root, ".vscode")]), {}, "bash", {
			command: "echo '{}' > .vscode/tasks.json && echo ran",
		});
		expect(textOf(allowed)).toContain("ran");
		expect(existsSync(join(root, "elsewhere", "tasks.json"))).toBe(true);
	});

	it("leaves the workspace as it found it: file placeholders go after each call, folder ones when the sandbox closes", async () => {
		const root = join(tempDir(), "root");
		await mkdir(root);
		await writeFile(join(root, "a.txt"), "a");
		const sandbox = await createSandbox({ writableRoots: [root], homeDir: join(tempDir(), "home") });
		const tools = [createBashTool(root, { operations: sandbox.wrap(localShellOperations) })];
		for (const command of ["ls -A", "touch .envrc .vscode/x .git/config; ls -A"]) {
			const message = await runCall(tools, {}, "bash", { command });
			expect(textOf(message)).toContain(".git");
			expect(textOf(message)).toContain(".envrc");
		}
		// Between calls: empty folders only (git lists no empty folder, but would list an empty file).
		const between = readdirSync(root);
		expect(between).toContain(".vscode");
		expect(between.filter((name) => !statSync(join(root, name)).isDirectory())).toEqual(["a.txt"]);
		for (const name of between) if (name !== "a.txt") expect(readdirSync(join(root, name))).toEqual([]);
		await sandbox.close();
		expect(readdirSync(root)).toEqual(["a.txt"]);
	});
});
