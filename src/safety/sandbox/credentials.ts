import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/**
 * Where tools keep credentials, relative to the home directory. Hidden inside the sandbox by
 * default: an empty tmpfs over a directory, `/dev/null` over a file. A sandboxed command has no
 * reason to sign in anywhere, and with the network on, a token is all an exfiltration needs.
 */
export const credentialLocations: readonly string[] = [
	".ssh", // keys and agent config
	".gnupg", // signing keys
	".aws",
	".azure",
	".config/gcloud",
	".kube", // cluster tokens
	".docker", // registry auths
	".config/gh", // GitHub CLI token
	".config/hub",
	".git-credentials",
	".netrc", // curl, git and pip passwords
	".npmrc",
	".pypirc",
	".cargo/credentials",
	".cargo/credentials.toml",
	".gem/credentials",
	".terraform.d/credentials.tfrc.json",
	".vault-token",
	".password-store",
	".local/share/keyrings",
	".toolbelt", // toolbelt's own user settings: trust records, tokens
	".claude/.credentials.json",
	".codex/auth.json",
];

/** One credential location to hide. */
export interface HiddenPath {
	/** Absolute path. */
	path: string;
	/** A directory gets a tmpfs, a file `/dev/null`. */
	kind: "directory" | "file";
}

/** `~/x` and absolute paths, as one absolute spelling. */
export function expandHome(path: string, homeDir: string): string {
	if (path === "~") return homeDir;
	if (path.startsWith("~/")) return join(homeDir, path.slice(2));
	return isAbsolute(path) ? resolve(path) : join(homeDir, path);
}

/**
 * The credential locations under `homeDir` that exist now (a symlink counts as what it points to),
 * minus the ones named in `expose` (`~/.aws` or an absolute path; a name that is not in the list
 * changes nothing, since it was never hidden).
 */
export function credentialsToHide(homeDir: string, expose: readonly string[] = []): HiddenPath[] {
	const exposed = new Set(expose.map((path) => expandHome(path, homeDir)));
	const found: HiddenPath[] = [];
	for (const location of credentialLocations) {
		const path = join(homeDir, location);
		if (exposed.has(path)) continue;
		// Synchronous: twenty stats cost less than twenty thread-pool round trips.
		const info = statSync(path, { throwIfNoEntry: false });
		if (info) found.push({ path, kind: info.isDirectory() ? "directory" : "file" });
	}
	return found;
}
