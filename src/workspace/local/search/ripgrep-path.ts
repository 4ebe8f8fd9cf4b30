import { createRequire } from "node:module";

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
	const binary = platformBinary();
	if (binary !== undefined) return Promise.resolve({ path: binary });
	bundled ??= import("@vscode/ripgrep").then(
		(module: { rgPath: string }) => ({ path: module.rgPath }),
		(error: unknown) => ({
			reason: `the bundled ripgrep is not available (${error instanceof Error ? error.message : String(error)})`,
		}),
	);
	return bundled;
}

let platformBinaryPath: string | null | undefined;

/**
 * The binary of `@vscode/ripgrep`'s package for this platform, found as that package finds it
 * (`@vscode/ripgrep-<platform>-<arch>/bin/rg`), where it resolves from here; undefined otherwise
 * (another layout: the package is then imported, which decides). A first search pays a CommonJS
 * look-up of one path instead of the ES module resolver's first run over the package's exports and
 * its import (~3 ms of a first call's wall time, against under 1 ms).
 */
function platformBinary(): string | undefined {
	if (platformBinaryPath === undefined) {
		const arch = process.env.npm_config_arch || process.arch;
		const name = process.platform === "win32" ? "rg.exe" : "rg";
		try {
			platformBinaryPath = createRequire(import.meta.url).resolve(
				`@vscode/ripgrep-${process.platform}-${arch}/bin/${name}`,
			);
		} catch {
			platformBinaryPath = null;
		}
	}
	return platformBinaryPath ?? undefined;
}
