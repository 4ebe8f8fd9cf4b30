/** Where the ripgrep binary is, or why there is none. */
export type RipgrepLocation = { path: string } | { path?: undefined; reason: string };

let bundled: Promise<RipgrepLocation> | undefined;

/**
 * The `rg` binary to run: the user's when given, else the one `@vscode/ripgrep` ships. The
 * package is imported lazily because it throws at import time on a platform without a binary,
 * and that must mean "use the walker", not "cannot load the tools".
 */
export function locateRipgrep(userPath?: string): Promise<RipgrepLocation> {
	if (userPath) return Promise.resolve({ path: userPath });
	bundled ??= import("@vscode/ripgrep").then(
		(module: { rgPath: string }) => ({ path: module.rgPath }),
		(error: unknown) => ({
			reason: `the bundled ripgrep is not available (${error instanceof Error ? error.message : String(error)})`,
		}),
	);
	return bundled;
}
