// The language servers toolbelt knows: TypeScript/JavaScript through typescript-language-server
// and Python through pyright (both dependencies of toolbelt), and any other server configured by
// command. The TypeScript server runs the project's own `typescript` when the workspace is trusted
// to run its code, else the one toolbelt depends on.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import type { LanguageServerSpec } from "./types.js";

/** A server as settings configure it (`diagnostics.servers.<name>`). */
export interface ConfiguredServer {
	/** The program and its arguments (found on PATH when not a path). */
	command: string[];
	/** File name endings it checks, with the dot. */
	extensions: string[];
	/** The LSP `languageId` of its files. Default: the server's name. */
	languageId?: string;
	/** Sent as `initializationOptions`. */
	initializationOptions?: unknown;
}

let packageRequire: NodeJS.Require | undefined;

function requireFromHere(): NodeJS.Require {
	packageRequire ??= createRequire(import.meta.url);
	return packageRequire;
}

/** A file of a package toolbelt depends on, or undefined when it is not installed. */
function packageFile(name: string, file: string): string | undefined {
	try {
		return join(dirname(requireFromHere().resolve(`${name}/package.json`)), file);
	} catch {
		return undefined;
	}
}

/**
 * The tsserver a TypeScript server runs: the workspace's own `node_modules/typescript` (searched
 * from `root` upwards) when `trustWorkspace`, else toolbelt's.
 */
export function tsserverPath(root: string, trustWorkspace: boolean): string | undefined {
	if (trustWorkspace) {
		for (let folder = root; ; folder = dirname(folder)) {
			const candidate = join(folder, "node_modules", "typescript", "lib", "tsserver.js");
			if (existsSync(candidate)) return candidate;
			if (dirname(folder) === folder) break;
		}
	}
	return packageFile("typescript", "lib/tsserver.js");
}

const typescriptLanguageIds: Record<string, string> = {
	".ts": "typescript",
	".mts": "typescript",
	".cts": "typescript",
	".tsx": "typescriptreact",
	".js": "javascript",
	".mjs": "javascript",
	".cjs": "javascript",
	".jsx": "javascriptreact",
};

/** The built-in servers for a workspace folder; a server whose package is missing is left out. */
export function builtInServers(root: string, options: { trustWorkspace: boolean }): LanguageServerSpec[] {
	const servers: LanguageServerSpec[] = [];
	const typescriptServer = packageFile("typescript-language-server", "lib/cli.mjs");
	const tsserver = tsserverPath(root, options.trustWorkspace);
	if (typescriptServer && tsserver) {
		servers.push({
			name: "typescript",
			command: [process.execPath, typescriptServer, "--stdio"],
			extensions: Object.keys(typescriptLanguageIds),
			languageIdOf: (path) => typescriptLanguageIds[extname(path)] ?? "typescript",
			request: "tsserver",
			initializationOptions: {
				// No npm run for typings, and one tsserver rather than two: the syntax server serves an
				// editor's keystrokes, not a check after a change.
				disableAutomaticTypingAcquisition: true,
				tsserver: { path: tsserver, useSyntaxServer: "never" },
			},
		});
	}
	const pyright = packageFile("pyright", "langserver.index.js");
	if (pyright) {
		servers.push({
			name: "python",
			command: [process.execPath, pyright, "--stdio"],
			extensions: [".py", ".pyi"],
			// pyright runs `python3 -c …` in the workspace to find its search paths: without this the
			// workspace folder comes first on sys.path, and a repository's `json.py` would run (Python ≥ 3.11 honours it).
			env: { PYTHONSAFEPATH: "1" },
		});
	}
	return servers;
}

/**
 * The servers to use: the built-in ones, each replaced by a configured server of the same name,
 * or removed by `false`; configured servers of other names added.
 */
export function serverSpecs(
	builtIn: readonly LanguageServerSpec[],
	configured: Readonly<Record<string, ConfiguredServer | false>> = {},
): LanguageServerSpec[] {
	const specs = builtIn.filter((spec) => !(spec.name in configured));
	for (const [name, server] of Object.entries(configured)) {
		if (server === false) continue;
		specs.push({
			name,
			command: server.command,
			extensions: server.extensions,
			...(server.languageId ? { languageIdOf: () => server.languageId ?? name } : {}),
			...(server.initializationOptions !== undefined ? { initializationOptions: server.initializationOptions } : {}),
		});
	}
	return specs;
}
