// Build step (after tsc): compiles the built-in tools' argument schemas with ajv ahead of time,
// into dist/engine/validation/precompiled-validators.cjs, so a one-shot `toolbelt tool X` validates without
// loading ajv's compiler or generating code at start-up. The options are the ones
// src/engine/validation/validate.ts gives ajv; a schema not found here (an MCP tool's, a changed one) is
// compiled at run time as before.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv = require("ajv").default;
const standaloneCode = require("ajv/dist/standalone").default;
const { validatorOptions } = await import("../dist/engine/validation/validator-options.js");
const { createAllToolDefinitions } = await import("../dist/tools/index.js");

const ajv = new Ajv({ ...validatorOptions, code: { source: true } });
const keys = {};
const refs = {};
for (const [index, definition] of Object.values(createAllToolDefinitions(process.cwd())).entries()) {
	const { $schema: _ignored, ...schema } = definition.parameters;
	const key = JSON.stringify(schema);
	if (key in keys) continue;
	const name = `validate${index}`;
	keys[key] = name;
	ajv.addSchema(schema, name);
	refs[name] = name;
}
/**
 * The code with ajv's run-time helpers inlined. Standalone code requires them by package path
 * (`require("ajv/dist/runtime/ucs2length")` for a `maxLength`); in the library's ES-module bundle,
 * where packages stay external, such a require cannot run, the file failed to load, and every schema
 * was compiled by ajv at run time. A helper is a small self-contained module: each is defined once
 * at the top and named where it was required; one that requires anything itself stops the build.
 */
function withRuntimeHelpersInlined(source) {
	const helpers = new Map();
	const body = source.replace(/require\("(ajv\/dist\/runtime\/[\w-]+)"\)/g, (_whole, specifier) => {
		if (!helpers.has(specifier)) {
			const text = readFileSync(require.resolve(specifier), "utf8");
			// Its own `code` property names the require in a string: only a call counts.
			if (/(?<![\w.'"])require\(/.test(text)) throw new Error(`precompile-validators: ${specifier} requires other modules`);
			helpers.set(specifier, { name: `ajvRuntime${helpers.size}`, text });
		}
		return helpers.get(specifier).name;
	});
	const definitions = [...helpers.values()].map(
		({ name, text }) => `const ${name} = ((module, exports) => {\n${text}\nreturn module.exports;\n})(...(() => { const module = { exports: {} }; return [module, module.exports]; })());`,
	);
	// After the code's "use strict", which must stay first to apply.
	const strict = '"use strict";';
	const rest = body.startsWith(strict) ? body.slice(strict.length) : body;
	return `${body.startsWith(strict) ? strict : ""}\n${definitions.join("\n")}\n${rest}`;
}

const code = withRuntimeHelpersInlined(standaloneCode(ajv, refs));
const out = new URL("../dist/engine/validation/precompiled-validators.cjs", import.meta.url);
writeFileSync(out, `${code}\nexports.schemaKeys = ${JSON.stringify(keys)};\n`);
