// Red-team tests: the file tools do not write the files that run later. write, edit and
// apply_patch, through the built CLI in every mode that lets file changes through, try each
// protected auto-run path (a hooks folder core.hooksPath names, husky's, another agent's settings,
// editor tasks, a dev container); none is written unless a rule names it. As root and as an
// unprivileged user.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
// Each test starts the CLI several times; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 180_000 });
afterEach(() => cli.killAll());

const paths = [
	".githooks/pre-commit",
	".husky/pre-commit",
	".claude/settings.json",
	".vscode/tasks.json",
	".devcontainer/devcontainer.json",
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
	beforeEach(() => {
		ensureBuiltCli();
	});

	/** A project whose git config names .githooks, each protected path holding `old`. */
	async function project(): Promise<string> {
		const root = join(tempDir(), "project");
		await mkdir(join(root, ".git"), { recursive: true });
		await writeFile(join(root, ".git", "config"), "[core]\n\thooksPath = .githooks\n");
		for (const path of paths) {
			await mkdir(dirname(join(root, path)), { recursive: true });
			await writeFile(join(root, path), "old\n");
		}
		await handOver(tempDir(), user);
		return root;
	}

	function tool(root: string, name: string, args: Record<string, unknown>, flags: string[]) {
		return cli.run(["tool", name, JSON.stringify(args), ...flags], {
			cwd: root,
			env: cleanEnv({ HOME: join(tempDir(), "home") }),
			user,
		});
	}

	for (const [mode, flags] of modes) {
		for (const name of Object.keys(callOf)) {
			it(`${name} in ${mode} mode writes none of them`, async () => {
				const root = await project();
				for (const path of paths) {
					// write replaces only a file the model read; give it a new name in the same folder too.
					const targets = name === "write" ? [path, join(dirname(path), "new-file")] : [path];
					for (const target of targets)
						await tool(root, name, (callOf[name] as (p: string) => Record<string, unknown>)(target), flags);
					expect(readFileSync(join(root, path), "utf8"), `${name} ${path}`).toBe("old\n");
					expect(existsSync(join(root, dirname(path), "new-file")), `${name} ${path}`).toBe(false);
				}
			});
		}
	}

	it("a rule naming the path opens it (edit(…) for every file tool)", async () => {
		const root = await project();
		const run = await tool(root, "edit", callOf.edit?.(".vscode/tasks.json") ?? {}, [
			"--allow",
			"edit(.vscode/tasks.json)",
		]);
		expect(run.code).toBe(0);
		expect(readFileSync(join(root, ".vscode", "tasks.json"), "utf8")).toBe("planted\n");
	});
});
