import { createRequire } from "node:module";
import type AjvModule from "ajv";

/** The Ajv class (ajv ships CommonJS; under NodeNext its default export is the module object). */
export type AjvClass = typeof AjvModule.default;

let loaded: AjvClass | undefined;

/**
 * Loads ajv on first use, synchronously (it is CommonJS, so `require` can): ajv is about a
 * hundred modules, and a start that validates nothing — `toolbelt tools`, an MCP server up to
 * `initialize`, a settings-free start — should not pay for them.
 */
export function loadAjv(): AjvClass {
	if (!loaded) {
		const module = createRequire(import.meta.url)("ajv") as { default?: AjvClass } & AjvClass;
		loaded = module.default ?? module;
	}
	return loaded;
}
