// Part of scripts/bundle-library.mjs: a CommonJS package that our modules import by its default
// export alone (`import ignore from "ignore"`) is required instead, through a small module of the
// bundle. Node's ES module loader reads a CommonJS file's whole source to find its export names
// (cjs-module-lexer); on Node 20 that parse of `ignore` (50 KB) makes V8 optimize the lexer's loop on a
// helper thread for ~130 ms, which after the bundle's short import overlapped a fresh process's first
// tool call (BENCHMARKS.md, "the library's entries bundled", Node 20). `require` needs no export names.
// Named imports from a CommonJS package are left to Node's loader.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const namespace = "toolbelt-required-package";
const prefix = `${namespace}:`;

/**
 * True when `specifier` names a whole package that Node would load as CommonJS from an ES module:
 * no "exports" with an "import" condition, no `"type": "module"`, its main file not `.mjs`.
 */
function isCommonJsPackage(root, specifier) {
	if (!/^(@[^/]+\/)?[^/@.][^/]*$/.test(specifier)) return false;
	const require = createRequire(`${root}package.json`);
	let manifest;
	try {
		manifest = JSON.parse(readFileSync(require.resolve(`${specifier}/package.json`), "utf8"));
	} catch {
		return false;
	}
	if (manifest.type === "module" || JSON.stringify(manifest.exports ?? {}).includes('"import"')) return false;
	return !require.resolve(specifier).endsWith(".mjs");
}

/** `contents` with each default-only import of a CommonJS package turned into one of its required module. */
export function requireCommonJsDefaults(root, contents) {
	// tsc leaves `, {}` where every named import was a type.
	return contents.replace(/^import (\w+)(, \{\})? from (["'])([^"']+)\3;$/gm, (statement, name, _empty, quote, specifier) =>
		isCommonJsPackage(root, specifier) ? `import ${name} from ${quote}${prefix}${specifier}${quote};` : statement,
	);
}

/** The esbuild plugin that makes each such module: the package's `module.exports` as its default export. */
export const requiredPackages = {
	name: namespace,
	setup(build) {
		build.onResolve({ filter: new RegExp(`^${prefix}`) }, (args) => ({ path: args.path.slice(prefix.length), namespace }));
		build.onLoad({ filter: /.*/, namespace }, (args) => ({
			contents: `import { createRequire } from "node:module";\nexport default createRequire(import.meta.url)(${JSON.stringify(args.path)});\n`,
			loader: "js",
		}));
	},
};
