// Build step (after tsc and precompile-validators): the package's entries ("toolbelt",
// "toolbelt/tools", … — every subpath of package.json's "exports") as bundled ES modules in
// dist/bundle/, which "exports" points at. Importing tsc's output loads ~380 modules one by one;
// Node's loader allocates ~20 MB doing so (package scope look-ups, URLs, module jobs), and that heap
// makes V8 run a full mark-compact inside a fresh process's first tool call. A few bundled files
// leave half of it and no mark-compact before the call (BENCHMARKS.md, "the library's entries
// bundled").
// - One copy of every module: all entries are bundled in one build with code splitting, so what two
//   entries share lives in a chunk both import (a class from "toolbelt" is the class of
//   "toolbelt/tools"); a dynamic import() of our own module stays lazy as a chunk of its own.
// - Every package stays in node_modules (`packages: "external"`): a library must not carry a second
//   copy of what its user also imports (zod, the MCP SDK, typebox), and native code, WebAssembly and
//   worker files stay where their packages find them.
// - A module that finds a file next to itself (`createRequire(import.meta.url)`, package.json) gets
//   its own tsc output's URL for `import.meta.url`: tsc's output stays in dist/, beside the bundle.
//   The build-time validators (a CommonJS file next to their module) are bundled instead: required
//   from disk, they cost a tool's creation ~7 ms of CPU in a fresh process.
// - The type declarations stay tsc's (the "types" of each export).
// - The functions a first tool call runs (scripts/call-path-functions.mjs, from V8's function events
//   of the first-call bench) are compiled as the bundle loads, not lazily inside that call
//   (scripts/eager-functions.mjs): the import pays what the call no longer does, so only those
//   (every function so would add ~40 ms of CPU to the import; BENCHMARKS.md, "compiled before the
//   first call"). A function the list no longer names is only lazy again. That moves a declaration
//   to the top of its file, which is sound while no two files import each other.
// Without esbuild (an install without dev dependencies) each entry file is one line that
// re-exports tsc's output, which then loads as before.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { asciiBundleText } from "./ascii-bundle.mjs";
import { callPathFunctions } from "./call-path-functions.mjs";
import { eagerFunctionsText } from "./eager-functions.mjs";
import { requireCommonJsDefaults, requiredPackages } from "./required-packages.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const dist = join(root, "dist");
const outdir = join(dist, "bundle");
const bundlePrefix = "./dist/bundle/";

/**
 * Each export's bundled file name and the tsc module it is built from, read from package.json:
 * `"./tools": { "types": "./dist/tools/index.d.ts", "import": "./dist/bundle/tools.js" }`.
 */
async function libraryEntries() {
	const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
	const entries = {};
	for (const [subpath, target] of Object.entries(manifest.exports)) {
		if (typeof target !== "object") continue;
		if (!target.import?.startsWith(bundlePrefix) || !target.types?.endsWith(".d.ts")) {
			throw new Error(`bundle-library: export ${subpath} should import ${bundlePrefix}… and have .d.ts types`);
		}
		const name = target.import.slice(bundlePrefix.length, -".js".length);
		entries[name] = join(root, target.types.replace(/\.d\.ts$/, ".js"));
	}
	return entries;
}

/**
 * Our own modules (tsc's output): the build-time validators are bundled (required statically: a
 * bundler cannot follow createRequire), a CommonJS package imported for its default export is
 * required (scripts/required-packages.mjs), and `import.meta.url` elsewhere is the URL of the
 * module's own file in tsc's output.
 */
const ownModules = {
	name: "toolbelt-own-modules",
	setup(build) {
		build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
			let contents = await readFile(args.path, "utf8");
			if (args.path.endsWith("precompiled-validators.js")) {
				const dynamic = 'createRequire(import.meta.url)("./precompiled-validators.cjs")';
				if (!contents.includes(dynamic)) throw new Error(`bundle-library: ${args.path} no longer contains ${dynamic}`);
				contents = contents.replace(dynamic, 'require("./precompiled-validators.cjs")');
			}
			contents = requireCommonJsDefaults(root, contents);
			if (!contents.includes("import.meta.url")) return { contents, loader: "js" };
			// Every output file is in outdir itself (entries by name, chunks beside them).
			const fromOutput = relative(outdir, args.path).split("\\").join("/");
			const url = `new URL(${JSON.stringify(fromOutput)}, import.meta.url).href`;
			return { contents: contents.replaceAll("import.meta.url", url), loader: "js" };
		});
	},
};

async function writeReexports(entries) {
	for (const [name, module] of Object.entries(entries)) {
		const specifier = relative(outdir, module).split("\\").join("/");
		await writeFile(join(outdir, `${name}.js`), `export * from ${JSON.stringify(specifier)};\n`);
	}
}

const entries = await libraryEntries();
await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
let esbuild;
try {
	esbuild = await import("esbuild");
} catch {
	await writeReexports(entries);
	console.warn("bundle-library: esbuild is not installed; the entries re-export tsc's modules (slower import).");
	process.exit(0);
}

const result = await esbuild.build({
	entryPoints: entries,
	bundle: true,
	splitting: true,
	format: "esm",
	platform: "node",
	target: "node20",
	outdir,
	entryNames: "[name]",
	chunkNames: "chunk-[hash]",
	packages: "external",
	write: false,
	plugins: [ownModules, requiredPackages],
	legalComments: "eof",
	logLevel: "warning",
});
/**
 * Throws when the files' static imports form a cycle: a function declaration moved to the top of
 * its file as `var f = (function f…)` is unset until that file runs, which a cycle would let another
 * file's code reach first.
 */
function checkNoImportCycle(files) {
	const imports = new Map(
		files.map((file) => {
			const statements = file.text.matchAll(/^(?:import|export)\b[^;]*?from\s*"\.\/([^"]+)"|^import\s*"\.\/([^"]+)"/gm);
			return [basename(file.path), [...statements].map((match) => match[1] ?? match[2])];
		}),
	);
	const done = new Set();
	const visit = (name, path) => {
		if (path.includes(name)) throw new Error(`bundle-library: import cycle ${[...path, name].join(" -> ")}`);
		if (done.has(name)) return;
		for (const next of imports.get(name) ?? []) visit(next, [...path, name]);
		done.add(name);
	};
	for (const name of imports.keys()) visit(name, []);
}

checkNoImportCycle(result.outputFiles);
// TOOLBELT_LAZY_BUNDLE=1: none (to measure against, or to list the functions anew).
const eager = new Map(
	process.env.TOOLBELT_LAZY_BUNDLE
		? []
		: Object.entries(callPathFunctions).map(([module, keys]) => [`dist/${module}`, new Set(keys)]),
);
for (const file of result.outputFiles) {
	const text = (eager.size > 0 && (await eagerFunctionsText(file.text, (module) => eager.get(module)))) || file.text;
	// An ASCII file is read into a one-byte string: half the memory, no UTF-8 decoding.
	await writeFile(file.path, (await asciiBundleText(text)) ?? text);
}
