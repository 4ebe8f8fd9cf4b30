import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv";

interface PrecompiledModule {
	/** A schema's JSON (without `$schema`) → the name of its exported validator. */
	schemaKeys: Record<string, string>;
	[name: string]: unknown;
}

let loaded: PrecompiledModule | undefined;

function loadPrecompiled(): PrecompiledModule {
	try {
		// Written next to this module by the build (scripts/precompile-validators.mjs); absent when
		// running from source, then every schema is compiled at run time.
		return createRequire(import.meta.url)("./precompiled-validators.cjs") as PrecompiledModule;
	} catch {
		return { schemaKeys: {} };
	}
}

/**
 * The validator the build compiled for a schema with exactly this JSON, if any: the built-in
 * tools' schemas, with the same ajv options as at run time, so a start-up pays neither for ajv's
 * compiler nor for code generation.
 */
export function precompiledValidator(schemaJson: string): ValidateFunction | undefined {
	loaded ??= loadPrecompiled();
	const name = loaded.schemaKeys[schemaJson];
	return name === undefined ? undefined : (loaded[name] as ValidateFunction | undefined);
}
