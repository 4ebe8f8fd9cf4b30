import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makePdf } from "../helpers/make-pdf.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { ensureBuiltCli } from "../mcp/helpers.js";
import { writeConsumerProject } from "./consumer-lock.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
	exports: Record<string, unknown>;
};

interface Run {
	code: number | null;
	/** stdout and stderr, interleaved. */
	output: string;
}

/**
 * The environment without what `npm test` adds for its scripts (`npm_config_local_prefix` and the
 * like), so an npm started here works on the consumer's folder, not this repository's; the cache
 * setting stays, as the install must come from it.
 */
function consumerEnv(): NodeJS.ProcessEnv {
	const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
	if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
	return env;
}

/** Runs a command to its end (killed after 5 minutes), keeping what it printed. */
function run(command: string, args: string[], cwd: string): Promise<Run> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env: consumerEnv(), stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		const keep = (chunk: Buffer) => {
			output += chunk.toString("utf8");
		};
		child.stdout.on("data", keep);
		child.stderr.on("data", keep);
		const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
		child.once("error", reject);
		child.once("close", (code) => {
			clearTimeout(timer);
			resolve({ code, output });
		});
	});
}

/** What test/package/consumer-calls.mjs prints. */
interface ConsumerReport {
	resolved: string;
	imports: Record<string, string>;
	sharedNames: number;
	differing: string[];
	calls: Record<string, { isError: boolean; text: string }>;
	ajvLoaded: boolean;
}

/** Bytes of every file under `dir` (links not followed). */
async function treeBytes(dir: string): Promise<number> {
	let total = 0;
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) total += await treeBytes(path);
		else if (entry.isFile()) total += (await stat(path)).size;
	}
	return total;
}

/** A consumer's TypeScript file importing every subpath export (the manifest's, not a list of ours). */
function importEverySubpath(): string {
	const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== "./package.json");
	const lines = subpaths.map((subpath, index) => {
		const specifier = subpath === "." ? "toolbelt" : `toolbelt/${subpath.slice(2)}`;
		return `import * as export${index} from "${specifier}";\nexport const keys${index}: string[] = Object.keys(export${index});`;
	});
	// One named import with its type, so an export that resolved to `any` would not pass unseen.
	lines.push('import { createCodingTools } from "toolbelt";');
	lines.push('export const tools: ReturnType<typeof createCodingTools> = createCodingTools("/tmp");');
	return `${lines.join("\n")}\n`;
}

// The slowest test of the suite (an npm install of the packed tarball, ~30 s on a quiet machine):
// it shows the package as a consumer gets it.
describe("the package as a consumer installs it (npm pack, then npm ci from the cache)", () => {
	const dir = useTempDir();

	it("installs without an install-script warning, resolves every export's types, runs each tool from the bundled entries, and says what a PDF read needs", async () => {
		ensureBuiltCli();
		// The build ran above; the manifest step of `prepack`/`postpack` runs here around a pack without scripts.
		const packManifest = (action: string) => run("node", [join("scripts", "pack-manifest.mjs"), action], root);
		expect((await packManifest("strip")).code).toBe(0);
		const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir()], root).finally(
			() => packManifest("restore"),
		);
		expect(packed.code, packed.output).toBe(0);
		expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.prepare).toBe("npm run build");
		const [pack] = JSON.parse(packed.output.slice(packed.output.indexOf("["))) as {
			filename: string;
			files: { path: string }[];
		}[];
		const files = pack?.files.map((file) => file.path) ?? [];
		expect(files).toContain("LICENSE");
		expect(files.filter((path) => path.endsWith(".map"))).toEqual([]);
		// The entries as bundled by scripts/bundle-library.mjs (esbuild is a dev dependency here).
		expect(files).toContain("dist/bundle/index.js");
		expect(files.some((path) => path.startsWith("dist/bundle/chunk-"))).toBe(true);
		expect(
			files.filter((path) => !path.startsWith("dist/") && !/^(LICENSE|README\.md|package\.json)$/.test(path)),
		).toEqual([]);

		// npm 11.16+ names a tarball's prepare among install scripts to approve, though it runs none of them.
		const packedManifest = await run(
			"tar",
			["-xzf", join(dir(), pack?.filename ?? ""), "-O", "package/package.json"],
			dir(),
		);
		const packedScripts = Object.keys(JSON.parse(packedManifest.output).scripts ?? {});
		expect(packedScripts.filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);

		const consumer = join(dir(), "consumer");
		await run("mkdir", [consumer], dir());
		await writeConsumerProject(root, join(dir(), pack?.filename ?? ""), consumer);
		const installed = await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], consumer);
		expect(installed.code, installed.output).toBe(0);
		expect(installed.output).not.toMatch(/install[- ]scripts?/i);

		const bytes = await treeBytes(join(consumer, "node_modules"));
		console.log(`consumer install: ${(bytes / 2 ** 20).toFixed(1)} MiB in node_modules`);
		expect(existsSync(join(consumer, "node_modules", "pdfjs-dist"))).toBe(false);
		expect(existsSync(join(consumer, "node_modules", "@napi-rs", "canvas"))).toBe(false);
		expect(bytes).toBeLessThan(150 * 2 ** 20);

		await writeFile(join(consumer, "index.ts"), importEverySubpath());
		const tsconfig = {
			compilerOptions: {
				module: "nodenext",
				moduleResolution: "nodenext",
				target: "es2022",
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				types: [],
			},
			files: ["index.ts"],
		};
		await writeFile(join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
		const typed = await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."], consumer);
		expect(typed.output).toBe("");
		expect(typed.code).toBe(0);

		await copyFile(join(root, "test/package/consumer-calls.mjs"), join(consumer, "consumer-calls.mjs"));
		const used = await run(process.execPath, ["consumer-calls.mjs"], consumer);
		expect(used.code, used.output).toBe(0);
		const report = JSON.parse(used.output.trim().split("\n").at(-1) ?? "") as ConsumerReport;
		expect(report.resolved).toMatch(/\/node_modules\/toolbelt\/dist\/bundle\/index\.js$/);
		for (const [specifier, outcome] of Object.entries(report.imports)) {
			// The framework adapters' optional peers are not installed: their import says so.
			const expected = /ai-sdk|langchain|openai-agents/.test(specifier) ? "FrameworkUnavailableError" : "loaded";
			expect(`${specifier}: ${outcome}`).toBe(`${specifier}: ${expected}`);
		}
		// One copy of every module: a name two entries export is one object (classes, registries).
		expect(report.sharedNames).toBeGreaterThan(20);
		expect(report.differing).toEqual([]);
		const { editRefused, ...calls } = report.calls;
		for (const [name, result] of Object.entries(calls)) expect(result.isError, `${name}: ${result.text}`).toBe(false);
		// The grammars' WebAssembly, found from the bundle's chunk through the module's own URL.
		expect(editRefused?.text).toMatch(/parses as TypeScript now[\s\S]*line 2, column 15/);
		expect(calls.code?.text).toContain("program saw 1\tpatched");
		expect(calls.grep?.text).toContain("src/add.ts:2:");
		expect(report.ajvLoaded).toBe(false);

		await writeFile(join(consumer, "doc.pdf"), makePdf(["hello"]));
		const read = await run(
			process.execPath,
			[join(consumer, "node_modules/toolbelt/dist/cli/bin.js"), "tool", "read", '{"path":"doc.pdf"}'],
			consumer,
		);
		expect(read.output).toContain("npm i pdfjs-dist@5");
	}, 300_000);
});
