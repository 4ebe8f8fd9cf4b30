// The build's last step without esbuild (an install without dev dependencies): each entry that
// package.json's "exports" names re-exports tsc's output, and the package imports and works as
// before the entries were bundled.
import { execFile } from "node:child_process";
import { cp, mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureBuiltCli, repositoryRoot } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

const run = promisify(execFile);

/**
 * `dir/node_modules/toolbelt`: this package's manifest and build scripts, tsc's output (its folders
 * linked, the bundle left out) and every installed package but esbuild.
 */
async function packageWithoutEsbuild(dir: string): Promise<string> {
	ensureBuiltCli();
	const copy = join(dir, "node_modules", "toolbelt");
	await mkdir(join(copy, "dist"), { recursive: true });
	await cp(join(repositoryRoot, "package.json"), join(copy, "package.json"));
	await cp(join(repositoryRoot, "scripts"), join(copy, "scripts"), { recursive: true });
	for (const entry of await readdir(join(repositoryRoot, "dist"))) {
		if (entry !== "bundle") await symlink(join(repositoryRoot, "dist", entry), join(copy, "dist", entry));
	}
	await mkdir(join(copy, "node_modules"));
	for (const entry of await readdir(join(repositoryRoot, "node_modules"))) {
		if (entry === "esbuild" || entry.startsWith(".")) continue;
		await symlink(join(repositoryRoot, "node_modules", entry), join(copy, "node_modules", entry));
	}
	await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
	await writeFile(join(dir, "hello.txt"), "hello\n");
	return copy;
}

const useEntries = `
const main = await import("toolbelt");
const tools = await import("toolbelt/tools");
const { messages } = await main.executeToolCalls({
	tools: [tools.createTool("read", process.cwd())],
	toolCalls: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "hello.txt" } }],
});
console.log(JSON.stringify({
	resolved: import.meta.resolve("toolbelt"),
	sameFactory: main.createTool === tools.createTool,
	text: messages[0].content[0].text,
}));
`;

describe("the library's entries built without esbuild", () => {
	const dir = useTempDir();

	it("re-export tsc's modules, which load and run a call", async () => {
		const copy = await packageWithoutEsbuild(dir());
		const built = await run(process.execPath, ["scripts/bundle-library.mjs"], { cwd: copy, timeout: 60_000 });
		expect(built.stderr).toContain("esbuild is not installed");
		const used = await run(process.execPath, ["--input-type=module", "-e", useEntries], {
			cwd: dir(),
			timeout: 60_000,
		});
		const report = JSON.parse(used.stdout.trim()) as { resolved: string; sameFactory: boolean; text: string };
		expect(report.resolved).toMatch(/\/node_modules\/toolbelt\/dist\/bundle\/index\.js$/);
		expect(report.sameFactory).toBe(true);
		expect(report.text).toContain("hello");
	}, 120_000);
});
