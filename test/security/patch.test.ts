import { execFile } from "node:child_process";
import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

// A red-team test of issue 19 §1: every file of an apply_patch goes through the safety layer, and
// a patch that touches one file the guards refuse (outside the workspace, a protected path, a
// denied path, through a symlink out) is refused whole — the allowed files in it stay unchanged.

const run = promisify(execFile);
const dir = useTempDir();

async function cli(cwd: string, patch: string, extra: string[] = []): Promise<{ output: string; failed: boolean }> {
	const result = await run(
		process.execPath,
		[ensureBuiltCli(), "tool", "apply_patch", JSON.stringify({ patch }), ...extra],
		{ cwd, env: cleanEnv(), timeout: 20_000 },
	)
		.then(({ stdout, stderr }) => ({ output: `${stdout}\n${stderr}`, failed: false }))
		.catch((error: { stdout?: string; stderr?: string }) => ({
			output: `${error.stdout ?? ""}\n${error.stderr ?? ""}`,
			failed: true,
		}));
	return result;
}

function patchOf(...lines: string[]): string {
	return ["*** Begin Patch", "*** Update File: a.txt", "@@", "-a", "+A", ...lines, "*** End Patch"].join("\n");
}

async function project(): Promise<string> {
	const root = join(dir(), "project");
	await mkdir(join(root, "secret"), { recursive: true });
	await writeFile(join(root, "a.txt"), "a\n");
	await writeFile(join(root, ".env"), "TOKEN=1\n");
	await writeFile(join(root, "secret", "key"), "k\n");
	await writeFile(join(dir(), "outside.txt"), "outside\n");
	await symlink(dir(), join(root, "out"));
	return root;
}

describe("apply_patch through the CLI's safety layer", () => {
	it("applies a patch of allowed files", async () => {
		const root = await project();
		const { failed } = await cli(root, patchOf("*** Add File: b.txt", "+b"));
		expect(failed).toBe(false);
		expect(await readFile(join(root, "a.txt"), "utf8")).toBe("A\n");
		expect(await readFile(join(root, "b.txt"), "utf8")).toBe("b\n");
	});

	it.each([
		["a file outside the workspace", ["*** Update File: ../outside.txt", "@@", "-outside", "+pwned"], [] as string[]],
		["a new file through a symlink out", ["*** Add File: out/planted.txt", "+pwned"], []],
		["a protected path", ["*** Update File: .env", "@@", "-TOKEN=1", "+TOKEN=2"], []],
		["a denied path", ["*** Delete File: secret/key"], ["--deny", "edit(secret/**)"]],
		["a move onto a protected path", ["*** Update File: secret/key", "*** Move to: .env.local"], []],
	])("refuses a patch that also touches %s, whole", async (_name, lines, extra) => {
		const root = await project();
		// The same patch without the refused file applies (so the refusal is not the tool missing).
		const allowed = await cli(root, patchOf());
		expect(allowed.failed).toBe(false);
		await writeFile(join(root, "a.txt"), "a\n");
		const { output, failed } = await cli(root, patchOf(...lines), extra);
		expect(failed).toBe(true);
		expect(output).toMatch(/denied|protected|outside|Permission/i);
		expect(await readFile(join(root, "a.txt"), "utf8")).toBe("a\n");
		expect(await readFile(join(dir(), "outside.txt"), "utf8")).toBe("outside\n");
		expect(await readFile(join(root, ".env"), "utf8")).toBe("TOKEN=1\n");
		expect(await readFile(join(root, "secret", "key"), "utf8")).toBe("k\n");
		await expect(stat(join(dir(), "planted.txt"))).rejects.toThrow();
		await expect(stat(join(root, ".env.local"))).rejects.toThrow();
	});
});
