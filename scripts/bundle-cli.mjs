// Build step (after tsc and precompile-validators): bundles the CLI, with its dependencies, into
// one minified CommonJS file, which dist/cli/bin.js compiles with V8's code cache
// (src/cli/startup/bundle-loader.ts). One file instead of ~180 modules (350 for `toolbelt mcp`) is most of
// a cold start. Two of them: dist/cli/toolbelt-mcp.cjs for `toolbelt mcp`, with the MCP SDK and
// zod inside, and dist/cli/toolbelt.cjs for every other command, without them (half the size, so
// half the reading and the cache to load; `run --mcp-config` requires the SDK from node_modules).
// The packages that must stay outside (native code, their own binaries or worker files, or large
// and only for `toolbelt run`) are imported at run time through `__toolbeltImport`, which the
// loader passes in: the bundle runs as a vm.Script, which has no import() of its own. Without
// esbuild (an install without dev dependencies) the step is skipped and bin.js loads the modules.
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFileText } from "../dist/cli/startup/bundle-loader.js";
import { ajvOnFirstUsePlugin } from "./ajv-on-first-use.mjs";
import { asciiBundleText } from "./ascii-bundle.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const outputs = {
	core: `${root}dist/cli/toolbelt.cjs`,
	mcp: `${root}dist/cli/toolbelt-mcp.cjs`,
	start: `${root}dist/cli/start.cjs`,
};

/** Loaded from node_modules at run time, never bundled. */
const alwaysExternal = [
	"sharp",
	"pdfjs-dist",
	"@vscode/ripgrep",
	"@vscode/tree-sitter-wasm",
	"@lydell/node-pty",
	"openai",
	"@anthropic-ai/sdk",
	"ai",
	"@langchain/core",
	"@openai/agents",
	// Only a sandbox that keeps secrets out makes certificates (loaded when one does).
	"node-forge",
];
/** Also outside the bundle of the commands other than `mcp`. */
const mcpOnly = ["@modelcontextprotocol/sdk", "zod", "file-type"];
/**
 * Outside packages whose `import()` stays a `require()`: modules of ours also require them
 * statically, and loading one package both ways would make two copies of its classes (an
 * `instanceof McpError` would fail for an error the other copy threw).
 */
const requiredWhenOutside = ["@modelcontextprotocol/sdk", "zod"];

let esbuild;
try {
	esbuild = await import("esbuild");
} catch {
	for (const output of Object.values(outputs)) await rm(output, { force: true });
	console.warn("bundle-cli: esbuild is not installed; dist/cli/bin.js will load the modules one by one (slower start).");
	process.exit(0);
}

/**
 * Our own modules (tsc's output under dist/): a dynamic import of an external package becomes
 * `__toolbeltImport(…)` (but `requiredWhenOutside`'s, which esbuild makes a `require()`), and the build-time validators are required statically (they are
 * found next to their module with createRequire, which a bundler cannot follow).
 */
function ownModules(loadedByImport) {
	return {
		name: "toolbelt-own-modules",
		setup(build) {
			build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
				let contents = await readFile(args.path, "utf8");
				contents = contents.replace(/\bimport\((["'])([^"'.][^"']*)\1\)/g, (call, quote, specifier) =>
					loadedByImport(specifier) ? `__toolbeltImport(${quote}${specifier}${quote})` : call,
				);
				if (args.path.endsWith("precompiled-validators.js")) {
					const dynamic = 'createRequire(import.meta.url)("./precompiled-validators.cjs")';
					if (!contents.includes(dynamic)) throw new Error(`bundle-cli: ${args.path} no longer contains ${dynamic}`);
					contents = contents.replace(dynamic, 'require("./precompiled-validators.cjs")');
				}
				return { contents, loader: "js" };
			});
		},
	};
}

/**
 * zod's index exports every language of its error messages (`z.locales`, 64 of them, ~270 KB: an
 * eighth of the `mcp` bundle, read and copied at every start). Neither toolbelt nor the MCP SDK
 * picks a language, and zod itself uses English by default (imported on its own): the bundle's
 * `locales` holds English only.
 */
function zodEnglishOnly() {
	return {
		name: "toolbelt-zod-english-only",
		setup(build) {
			build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
				/[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
					? { path: join(args.resolveDir, "../locales/index.js"), namespace: "zod-english-only" }
					: undefined,
			);
			build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
				contents: 'export { default as en } from "./en.js";',
				resolveDir: dirname(args.path),
				loader: "js",
			}));
		},
	};
}

async function bundle(output, externalPackages) {
	const among = (names, specifier) => names.some((name) => specifier === name || specifier.startsWith(`${name}/`));
	const loadedByImport = (specifier) =>
		among(externalPackages, specifier) && !among(requiredWhenOutside, specifier);
	const result = await esbuild.build({
		entryPoints: [`${root}dist/cli/bundle-entry.js`],
		bundle: true,
		format: "cjs",
		platform: "node",
		target: "node20",
		// What is left of import() (Node's own modules, in dependencies) becomes require().
		supported: { "dynamic-import": false },
		write: false,
		outfile: output,
		external: externalPackages.flatMap((name) => [name, `${name}/*`]),
		define: { "import.meta.url": "__toolbeltBundleUrl" },
		// The SDK's validator module first: `ownModules` would otherwise load it (its filter takes any dist/).
		plugins: [ajvOnFirstUsePlugin(), ownModules(loadedByImport), zodEnglishOnly()],
		// Shorter names are a smaller cache to load at every start (TOOLBELT_NO_BUNDLE=1 for real stack traces).
		minify: true,
		// The bundled packages are also installed (dependencies), with their license files; their own notices stay.
		legalComments: "eof",
		logLevel: "warning",
		logOverride: { "empty-import-meta": "error" },
	});
	const text = (await asciiBundleText(result.outputFiles[0].text)) ?? result.outputFiles[0].text;
	// The bundle is a vm.Script: an import() left in it would fail at run time, so fail here.
	const leftover = /(?<![\w$.])import\(\s*["'`]/.exec(text);
	if (leftover) {
		const line = text.slice(0, leftover.index).split("\n").length;
		const code = text.split("\n")[line - 1]?.trim().slice(0, 200);
		throw new Error(`bundle-cli: a dynamic import() is left in the bundle (line ${line}: ${code}); make it external.`);
	}
	const hash = createHash("sha256").update(text).digest("hex");
	await writeFile(output, bundleFileText(text, hash));
}

/**
 * What bin.cjs and bin.js require before the bundle (src/cli/start.ts, the loader and the modules
 * they import) as one CommonJS file: Node's ES module loader would read each on its thread pool.
 */
async function bundleStart() {
	await esbuild.build({
		entryPoints: [`${root}dist/cli/start.js`],
		bundle: true,
		format: "cjs",
		platform: "node",
		target: "node20",
		outfile: outputs.start,
		packages: "external",
		logLevel: "warning",
	});
}

// The loader first: a bundle is used only when it is newer than tsc's output, and so is this.
await bundleStart();
await bundle(outputs.core, [...alwaysExternal, ...mcpOnly]);
await bundle(outputs.mcp, alwaysExternal);
