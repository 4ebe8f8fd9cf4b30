// Reads the secrets `sandbox.network.secrets` names (variables of toolbelt's environment, tokens
// in files) and makes what the sandbox gets instead: the variables set to placeholders, and a copy
// of each token file with placeholders for its tokens, mounted over the file inside.
import { readFile } from "node:fs/promises";
import { absoluteFromHome } from "../../credentials.js";
import { NetworkRuleError } from "../policy.js";
import { newPlaceholder, type Secret, type SecretSetting, SecretTable, secretRules } from "./secret-table.js";

/** What the sandbox gets in place of the secrets, and the table the proxy masks with. */
export interface PreparedSecrets {
	table: SecretTable;
	/** Variables set to their placeholders. */
	environment: Record<string, string>;
	/** Token files as the sandbox sees them: the real path and the masked content. */
	files: { path: string; content: string }[];
}

/**
 * Keys whose values are tokens or passwords, in the files that hold them: `.npmrc`/`.yarnrc`
 * (`_authToken`, `_auth`, `_password`), gh's `hosts.yml` (`oauth_token`), `.yarnrc.yml`
 * (`npmAuthToken`), docker's `config.json` (`auth`, `identitytoken`), `.pypirc` (`password`).
 */
const tokenKey = /(?:token|(?:^|_)auth|password|secret)$/i;

/** An ini line, `key = value` (npm's keys hold colons: `//registry.example.org/:_authToken=…`). */
const iniLine = /^(\s*)([^=\s#;][^=]*?)(\s*=\s*)(.*?)(\s*)$/;
/** A YAML or JSON line, `key: value` or `"key": "value",` (the key without colons). */
const colonLine = /^(\s*(?:-\s+)?)("?[^\s"=:#;{}[\],][^"=:]*"?)(\s*:[ \t]+)(.*?)(\s*,?\s*)$/;

/** The line with its token value replaced by `placeholderOf(value)`, if it has one. */
function maskedLine(line: string, placeholderOf: (value: string) => string): string {
	for (const pattern of [iniLine, colonLine]) {
		const match = pattern.exec(line);
		if (!match) continue;
		const [, indent = "", key = "", separator = "", raw = "", trail = ""] = match;
		if (!tokenKey.test(key.trim().replace(/^"|"$/g, "")) || raw === "" || raw.startsWith("${")) continue;
		const quoted = /^(["'])(.*)\1$/.exec(raw);
		const value = quoted ? (quoted[2] ?? "") : raw;
		const placeholder = placeholderOf(value);
		return `${indent}${key}${separator}${quoted ? `${quoted[1]}${placeholder}${quoted[1]}` : placeholder}${trail}`;
	}
	return line;
}

/**
 * `content` with each token value (`//registry.example.org/:_authToken=…`, `_auth=…`,
 * `_password=…`; `oauth_token: …`, `"auth": "…"`) replaced by a placeholder; `placeholderOf` gives
 * the same placeholder to the same value. A value that names a variable (`${NPM_TOKEN}`) is left:
 * the variable's own entry masks it.
 */
export function maskTokenFile(content: string, placeholderOf: (value: string) => string): string {
	return content
		.split("\n")
		.map((line) => maskedLine(line, placeholderOf))
		.join("\n");
}

/**
 * Reads each entry's secret: a variable that is not set, or a file that does not exist, is
 * skipped (there is nothing to keep out). Throws `NetworkRuleError` for an entry that names
 * neither or both, or a bad host.
 */
export async function prepareSecrets(
	settings: readonly SecretSetting[],
	place: { environment: NodeJS.ProcessEnv; homeDir: string },
): Promise<PreparedSecrets> {
	const secrets: Secret[] = [];
	const environment: Record<string, string> = {};
	const files: PreparedSecrets["files"] = [];
	for (const setting of settings) {
		if ((setting.env === undefined) === (setting.file === undefined)) {
			throw new NetworkRuleError(`sandbox.network.secrets: each entry names either "env" or "file", with "hosts"`);
		}
		const label = setting.env !== undefined ? `$${setting.env}` : (setting.file ?? "");
		let rules: Secret["rules"];
		try {
			rules = secretRules(label, setting.hosts);
		} catch (error) {
			throw new NetworkRuleError((error as Error).message);
		}
		const add = (value: string) => {
			const known = secrets.find((secret) => secret.value === value && secret.label === label);
			if (known) return known.placeholder;
			const secret = { label, placeholder: newPlaceholder(), value, rules, hosts: setting.hosts };
			secrets.push(secret);
			return secret.placeholder;
		};
		if (setting.env !== undefined) {
			const value = place.environment[setting.env];
			if (value) environment[setting.env] = add(value);
			continue;
		}
		const path = absoluteFromHome(setting.file ?? "", place.homeDir);
		const content = await readFile(path, "utf8").catch(() => undefined);
		if (content !== undefined) files.push({ path, content: maskTokenFile(content, add) });
	}
	return { table: new SecretTable(secrets), environment, files };
}
