/**
 * The one set of ajv options for tool arguments, shared by the run-time validator and the build
 * step that precompiles the built-in tools' schemas (`scripts/precompile-validators.mjs`), so
 * both validate and coerce alike. `coerceTypes` repairs what models get wrong most often: `"10"`
 * → 10, `"true"` → true, 5 → "5". `strict: false` because foreign schemas carry keywords ajv
 * does not know.
 */
export const validatorOptions = {
	allErrors: true,
	coerceTypes: true,
	useDefaults: true,
	strict: false,
	validateFormats: false,
} as const;
