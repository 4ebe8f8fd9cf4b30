import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../../workspace/index.js";

/**
 * What the sandbox hides, relative to the home directory: where tools keep credentials, where
 * shells and REPLs keep what was typed (passwords pasted on a command line), and toolbelt's own
 * state (checkpoints hold before-images of every workspace's files). An empty tmpfs goes over a
 * directory, `/dev/null` over a file. A sandboxed command has no reason to sign in anywhere, and
 * with the network on, a token is all an exfiltration needs. Entries under `.config/`,
 * `.local/state/`, `.local/share/` and `.cache/` are also hidden under `$XDG_CONFIG_HOME`,
 * `$XDG_STATE_HOME`, `$XDG_DATA_HOME` and `$XDG_CACHE_HOME` when those are set elsewhere.
 */
export const credentialLocations: readonly string[] = [
	// Keys.
	".ssh",
	".gnupg",
	".password-store",
	".local/share/keyrings",
	// Cloud and cluster command-line tools.
	".aws",
	".azure",
	".config/gcloud",
	".oci",
	".config/doctl",
	".config/hcloud",
	".config/linode-cli",
	".bluemix",
	".aliyun",
	".fly",
	".config/netlify",
	".wrangler",
	".config/.wrangler",
	".local/share/com.vercel.cli",
	".kube",
	".minikube",
	".docker",
	".config/containers/auth.json",
	".config/helm/registry",
	".terraform.d/credentials.tfrc.json",
	".terraformrc",
	".vault-token",
	// Git hosts and passwords for any host.
	".git-credentials",
	".config/git/credentials",
	".config/gh",
	".config/hub",
	".config/glab-cli",
	".netrc",
	// Package registries.
	".npmrc",
	".yarnrc",
	".yarnrc.yml",
	".config/pnpm/rc",
	".config/configstore",
	".pypirc",
	".pip/pip.conf",
	".config/pip/pip.conf",
	".config/pypoetry/auth.toml",
	".cargo/credentials",
	".cargo/credentials.toml",
	".gem/credentials",
	".m2/settings.xml",
	".m2/settings-security.xml",
	".gradle/gradle.properties",
	".nuget/NuGet/NuGet.Config",
	".config/NuGet/NuGet.Config",
	".composer/auth.json",
	".config/composer/auth.json",
	// Database passwords.
	".pgpass",
	".my.cnf",
	".mylogin.cnf",
	// What was typed into shells and REPLs.
	".bash_history",
	".zsh_history",
	".zhistory",
	".sh_history",
	".history",
	".local/share/fish/fish_history",
	".python_history",
	".node_repl_history",
	".ts_node_repl_history",
	".irb_history",
	".psql_history",
	".mysql_history",
	".sqlite_history",
	".rediscli_history",
	".dbshell",
	".lesshst",
	// Browser profiles (session cookies).
	".mozilla",
	".config/google-chrome",
	".config/chromium",
	// Coding agents' sign-ins.
	".claude/.credentials.json",
	".codex/auth.json",
	".config/github-copilot",
	".gemini/oauth_creds.json",
	// toolbelt's own: settings and trust records, checkpoints (every workspace's before-images), caches.
	".toolbelt",
	".config/toolbelt",
	".local/state/toolbelt",
	".cache/toolbelt",
];

/** The XDG base directories and the home-relative folder each defaults to. */
const xdgBases: readonly { variable: string; folder: string }[] = [
	{ variable: "XDG_CONFIG_HOME", folder: ".config/" },
	{ variable: "XDG_STATE_HOME", folder: ".local/state/" },
	{ variable: "XDG_DATA_HOME", folder: ".local/share/" },
	{ variable: "XDG_CACHE_HOME", folder: ".cache/" },
];

/** One credential location to hide. */
export interface HiddenPath {
	/** Absolute path. */
	path: string;
	/** A directory gets a tmpfs, a file `/dev/null`. */
	kind: "directory" | "file";
}

/** `~/x`, absolute paths and paths relative to the home directory, as one absolute spelling. */
export function absoluteFromHome(path: string, homeDir: string): string {
	return resolve(homeDir, expandHome(path, homeDir));
}

/** Every spelling of a location: under the home directory, and under its XDG base directory when that is set elsewhere. */
function spellings(location: string, homeDir: string, environment: NodeJS.ProcessEnv): string[] {
	const paths = [join(homeDir, location)];
	for (const { variable, folder } of xdgBases) {
		const base = environment[variable];
		if (!location.startsWith(folder) || !base || !isAbsolute(base)) continue;
		const elsewhere = join(base, location.slice(folder.length));
		if (!paths.includes(elsewhere)) paths.push(elsewhere);
	}
	return paths;
}

/**
 * The credential locations under `homeDir` (and the XDG base directories of `environment`) that
 * exist now (a symlink counts as what it points to), minus the ones named in `expose` (`~/.aws`
 * or an absolute path, in either spelling of an XDG location; a name that is not in the list
 * changes nothing, since it was never hidden).
 */
export function credentialsToHide(
	homeDir: string,
	expose: readonly string[] = [],
	environment: NodeJS.ProcessEnv = process.env,
): HiddenPath[] {
	const exposed = new Set(expose.map((path) => absoluteFromHome(path, homeDir)));
	const found: HiddenPath[] = [];
	for (const location of credentialLocations) {
		const paths = spellings(location, homeDir, environment);
		if (paths.some((path) => exposed.has(path))) continue;
		for (const path of paths) {
			// Synchronous: a hundred stats cost less than a hundred thread-pool round trips.
			const info = statSync(path, { throwIfNoEntry: false });
			if (info) found.push({ path, kind: info.isDirectory() ? "directory" : "file" });
		}
	}
	return found;
}
