import { execFile } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";

const run = promisify(execFile);
const dir = useTempDir();

async function cli(cwd: string, env: Record<string, string>, ...args: string[]) {
	return run(process.execPath, [ensureBuiltCli(), ...args], { cwd, env: cleanEnv(env), timeout: 20_000 })
		.then(({ stdout, stderr }) => ({ stdout, stderr, code: 0 }))
		.catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
			stdout: error.stdout ?? "",
			stderr: error.stderr ?? "",
			code: error.code ?? 1,
		}));
}

describe("toolbelt undo / checkpoints", () => {
	it("takes back each toolbelt tool run as one turn, stored under XDG_STATE_HOME", async () => {
		const project = join(dir(), "project");
		await mkdir(project);
		await writeFile(join(project, "a.txt"), "one\n");
		const env = { HOME: join(dir(), "home"), XDG_STATE_HOME: join(dir(), "state") };
		expect(
			(await cli(project, env, "tool", "edit", JSON.stringify({ path: "a.txt", old_string: "one", new_string: "two" })))
				.code,
		).toBe(0);
		const patch = "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch";
		expect((await cli(project, env, "tool", "apply_patch", JSON.stringify({ patch }))).code).toBe(0);

		const listed = await cli(project, env, "checkpoints");
		expect(listed.stdout).toMatch(/1\. .*apply_patch.*b\.txt/);
		expect(listed.stdout).toMatch(/2\. .*edit.*a\.txt/);
		expect(await stat(join(dir(), "state", "toolbelt", "checkpoints"))).toBeTruthy();

		const first = await cli(project, env, "undo");
		expect(first.stdout).toMatch(/Undid 1 call in 1 turn:\n\s+removed b\.txt/);
		await expect(stat(join(project, "b.txt"))).rejects.toThrow();
		await writeFile(join(project, "a.txt"), "changed by the user\n");
		const refused = await cli(project, env, "undo");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/a\.txt[\s\S]*--force/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("changed by the user\n");
		expect((await cli(project, env, "undo", "--force")).code).toBe(0);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("one\n");
		expect((await cli(project, env, "undo")).stdout).toMatch(/Nothing to undo/);
	});
});
