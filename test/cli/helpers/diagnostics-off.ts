/**
 * The environment every test's CLI process gets: language-server diagnostics off. They are on by
 * default in `toolbelt run`, the interactive session and `toolbelt mcp`, so any test that writes a
 * `.ts`, `.js` or `.py` file would otherwise start a real typescript-language-server or pyright
 * (seconds of CPU each, on a machine whose two cores the suite already fills). The tests about
 * diagnostics start the CLI without it (`withDiagnosticsDefault`).
 */
export const diagnosticsOffEnv: Readonly<Record<string, string>> = { TOOLBELT_DIAGNOSTICS: "0" };

/** `env` without the test default above: the CLI decides by its settings and entry point, as for a user. */
export function withDiagnosticsDefault(env: Record<string, string>): Record<string, string> {
	const { TOOLBELT_DIAGNOSTICS: _dropped, ...rest } = env;
	return rest;
}
