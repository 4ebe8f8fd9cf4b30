// Imports the built adapter subpaths in an install where their framework is absent, as a user
// without the optional peer dependency would, and checks the error names package and range.
import { execFile } from "node:child_process";
import { cp, mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nodeMajor } from "../../src/adapters/shared/load-framework.js";
import { ensureBuiltCli, repositoryRoot } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

const run = promisify(execFile);
const frameworkPackages = new Set(["ai", "@langchain", "@openai"]);

/** A copy of the built package under `node_modules/toolbelt`, next to every dependency except the frameworks. */
async function installWithoutFrameworks(dir: string): Promise<void> {
	ensureBuiltCli();
	const modules = join(dir, "node_modules");
	await mkdir(join(modules, "toolbelt"), { recursive: true });
	await cp(join(repositoryRoot, "dist"), join(modules, "toolbelt", "dist"), { recursive: true });
	await cp(join(repositoryRoot, "package.json"), join(modules, "toolbelt", "package.json"));
	for (const entry of await readdir(join(repositoryRoot, "node_modules"))) {
		if (frameworkPackages.has(entry) || entry.startsWith(".")) continue;
		await symlink(join(repositoryRoot, "node_modules", entry), join(modules, entry));
	}
	await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
}

async function importError(dir: string, specifier: string): Promise<string> {
	const script = `import(${JSON.stringify(specifier)}).then(() => console.log("loaded"), (error) => console.log(error.name + ": " + error.message));`;
	const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, timeout: 30_000 });
	return stdout.trim();
}

describe("an adapter subpath whose framework is not installed", () => {
	const dir = useTempDir();

	it("throws an error naming the package and the version range; the main entry still loads", async () => {
		await installWithoutFrameworks(dir());
		expect(await importError(dir(), "toolbelt")).toBe("loaded");
		expect(await importError(dir(), "toolbelt/langchain")).toBe(
			'FrameworkUnavailableError: toolbelt/langchain needs the package @langchain/core@^1.4.0, which is not installed. Install it next to toolbelt: npm install @langchain/core@"^1.4.0".',
		);
		const aiSdk = await importError(dir(), "toolbelt/ai-sdk");
		const agents = await importError(dir(), "toolbelt/openai-agents");
		if (nodeMajor() >= 22) {
			expect(aiSdk).toMatch(/toolbelt\/ai-sdk needs the package ai@\^7\.0\.0, which is not installed/);
			expect(agents).toMatch(/toolbelt\/openai-agents needs the package @openai\/agents@>=0\.20\.0 <0\.21\.0/);
		} else {
			expect(aiSdk).toMatch(/toolbelt\/ai-sdk needs ai@\^7\.0\.0, which needs Node 22 or newer/);
			expect(agents).toMatch(/toolbelt\/openai-agents needs @openai\/agents@.*, which needs Node 22 or newer/);
		}
	}, 60_000);
});
