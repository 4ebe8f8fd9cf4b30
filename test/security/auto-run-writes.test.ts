// Red-team tests: the file tools do not write the files that run later. write, edit and
// apply_patch, through the built CLI in every mode that lets file changes through, try each
// protected auto-run path (a hooks folder core.hooksPath names, husky's, another agent's settings,
// editor tasks, a dev container); none is written unless a rule names it. As root and as an
// unprivileged user. One `toolbelt mcp` per user and mode serves that mode's cases (a CLI start per
// call cost ~37 s a run); each case starts from the same files, put back before it.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { startUserMcpServer, type UserMcpServer } from "../cli/helpers/user-mcp-server.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

const cli = new CliProcesses();
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });
afterEach(() => cli.killAll());

const paths = [
	".githooks/pre-commit",
	".husky/pre-commit",
	".claude/settings.json",
	".vscode/tasks.json",
	".devcontainer/devcontainer.json",
	"pkg/.vscode/settings.json",
	// Python runs these at every interpreter start (site.py): see isStartupFile.
	".venv/lib/python3.11/site-packages/_project.pth",
	"src/sitecustomize.py",
];

/** Modes with the flags that let a file change through on the mode's own terms: default needs a tool-wide allow rule. */
const modes: [string, string[]][] = [
	[
		"default (tool-wide allow rules)",
		["--mode", "default", "--allow", "write", "--allow", "edit", "--allow", "apply_patch"],
	],
	["accept-edits", ["--mode", "accept-edits"]],
	["yolo", ["--mode", "yolo"]],
];

const callOf: Record<string, (path: string) => Record<string, unknown>> = {
	write: (path) => ({ path, content: "planted\n" }),
	edit: (path) => ({ path, old_string: "old", new_string: "planted" }),
	apply_patch: (path) => ({ patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-old\n+planted\n*** End Patch\n` }),
};

describe.each(testUsers())("files that run later, through the file tools, as %s", (user: TestUser) => {
	let root = "";
	const home = () => join(dirname(root), "home");
	const env = () => cleanEnv({ HOME: home() });
	const servers = new Map<string, UserMcpServer>();

	/** The project every case starts from: git config naming .githooks, each protected path holding `old`. */
	async function reset(): Promise<void> {
		await mkdir(join(root, ".git"), { recursive: true });
		await mkdir(home(), { recursive: true });
		await writeFile(join(root, ".git", "config"), "[core]\n\thooksPath = .githooks\n");
		for (const path of paths) {
			await mkdir(dirname(join(root, path)), { recursive: true });
			await writeFile(join(root, path), "old\n");
			for (const fresh of ["new-file", "new-file.pth"]) await rm(join(root, dirname(path), fresh), { force: true });
		}
		await handOver(dirname(root), user);
	}

	beforeAll(async () => {
		ensureBuiltCli();
		root = join(await mkdtemp(join(tmpdir(), "toolbelt-auto-run-")), "project");
		await reset();
		for (const [mode, flags] of modes)
			servers.set(mode, await startUserMcpServer({ user, cwd: root, env: env(), flags }));
	});
	afterAll(async () => {
		for (const server of servers.values()) await server.close();
		await rm(dirname(root), { recursive: true, force: true });
	});

	for (const [mode] of modes) {
		for (const name of Object.keys(callOf)) {
			it(`${name} in ${mode} mode writes none of them`, async () => {
				await reset();
				const server = servers.get(mode) as UserMcpServer;
				for (const path of paths) {
					// write replaces only a file the model read; give it a new name in the same folder too.
					const fresh = join(dirname(path), path.endsWith(".pth") ? "new-file.pth" : "new-file");
					const targets = name === "write" && !path.endsWith("customize.py") ? [path, fresh] : [path];
					for (const target of targets)
						await server.call(name, (callOf[name] as (p: string) => Record<string, unknown>)(target));
					expect(readFileSync(join(root, path), "utf8"), `${name} ${path}`).toBe("old\n");
					expect(existsSync(join(root, fresh)), `${name} ${path}`).toBe(false);
				}
			});
		}
	}

	it("a rule naming the path opens it (edit(…) for every file tool)", async () => {
		await reset();
		const run = await cli.run(
			[
				"tool",
				"edit",
				JSON.stringify(callOf.edit?.(".vscode/tasks.json") ?? {}),
				"--allow",
				"edit(.vscode/tasks.json)",
			],
			{ cwd: root, env: env(), user },
		);
		expect(run.code, run.stderr).toBe(0);
		expect(readFileSync(join(root, ".vscode", "tasks.json"), "utf8")).toBe("planted\n");
	});
});
