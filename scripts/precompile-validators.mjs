// Build step (after tsc): compiles the built-in tools' argument schemas with ajv ahead of time,
// into dist/engine/validation/precompiled-validators.cjs, so a one-shot `toolbelt tool X` validates without
// loading ajv's compiler or generating code at start-up. The options are the ones
// src/engine/validation/validate.ts gives ajv; a schema not found here (an MCP tool's, a changed one) is
// compiled at run time as before.
import { writeFileSync } from "node:fs";
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
const code = standaloneCode(ajv, refs);
const out = new URL("../dist/engine/validation/precompiled-validators.cjs", import.meta.url);
writeFileSync(out, `${code}\nexports.schemaKeys = ${JSON.stringify(keys)};\n`);
