// A bundle-time change to the MCP SDK (used by scripts/bundle-cli.mjs for the `mcp` bundle): its
// `Server` imports the JSON Schema validator's module, which imports Ajv and ajv-formats at the top,
// so every `toolbelt mcp` start ran their modules (Ajv's compiler, its formats, fast-uri: ~2 ms)
// and kept their compiled code in the start's code cache (~120 KB more to load at every start).
// The validator is used only to check an elicitation's answer, which toolbelt's server never asks
// for, and src/mcp/server.ts builds it on first use already. Here the module requires the two
// packages when the first validator is built instead of when it is loaded.
import { readFile } from "node:fs/promises";

/** The SDK's top-level imports of the two packages, as its build writes them. */
const IMPORTS = "import Ajv from 'ajv';\nimport _addFormats from 'ajv-formats';\n";
/** The start of the function that builds the validator's Ajv instance. */
const BUILDER = "function createDefaultAjvInstance() {\n";

/**
 * The SDK's `validation/ajv-provider.js` (`text`) with Ajv and ajv-formats required inside the
 * function that builds the Ajv instance. Throws when the text is not what this expects (an SDK
 * update changed it): the bundle must then be looked at, not built with the imports left eager.
 */
export function ajvOnFirstUse(text) {
	if (!text.includes(IMPORTS) || !text.includes(BUILDER)) {
		throw new Error(
			"ajv-on-first-use: the MCP SDK's validation/ajv-provider.js no longer imports Ajv as expected; update scripts/ajv-on-first-use.mjs",
		);
	}
	return text
		.replace(IMPORTS, "")
		.replace(
			BUILDER,
			`${BUILDER}    const Ajv = require('ajv').default;\n    const _addFormats = require('ajv-formats').default;\n`,
		);
}

/** The esbuild plugin that applies `ajvOnFirstUse` to the SDK's module (listed before any other loader of it). */
export function ajvOnFirstUsePlugin() {
	return {
		name: "toolbelt-ajv-on-first-use",
		setup(build) {
			build.onLoad(
				{ filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/ },
				async (args) => ({ contents: ajvOnFirstUse(await readFile(args.path, "utf8")), loader: "js" }),
			);
		},
	};
}
