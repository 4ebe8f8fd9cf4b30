import {
	chmodSync,
	closeSync,
	fsyncSync,
	lstatSync,
	mkdirSync,
	openSync,
	readFileSync,
	renameSync,
	rmSync,
	writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { knownProviders } from "../../agent/index.js";
import { type OptionValues, stringOption, UsageError } from "../args.js";

/** The keys `toolbelt config` stores, named as the flags they stand in for. */
export const userConfigKeys = ["provider", "model", "base-url"] as const;

/** One stored key. */
export type UserConfigKey = (typeof userConfigKeys)[number];

/** The user's stored defaults: what `run` and the session use when no flag says otherwise. */
export type UserConfig = Partial<Record<UserConfigKey, string>>;

/** Most bytes of a config file read: it holds three short values. */
const MAX_CONFIG_BYTES = 64 * 1024;

/** `~/.toolbelt/config.json` of the home `env.HOME` names (else the user's home). */
export function userConfigPath(env: Record<string, string | undefined>): string {
	return join(env.HOME || homedir(), ".toolbelt", "config.json");
}

/** A usage error, or undefined when `key` is one `toolbelt config` stores. */
export function checkUserConfigKey(key: string): string | undefined {
	if ((userConfigKeys as readonly string[]).includes(key)) return undefined;
	const apiKey = /key|token|secret/i.test(key) ? " API keys are not stored: export them (OPENAI_API_KEY, …)." : "";
	return `Unknown config key '${key}'. Keys: ${userConfigKeys.join(", ")}.${apiKey}`;
}

/** A usage error, or undefined when `value` is fine for `key`. API keys are never stored: they stay in the environment. */
export function checkUserConfigValue(key: string, value: string): string | undefined {
	const badKey = checkUserConfigKey(key);
	if (badKey) return badKey;
	if (value.trim() === "" || /[\u0000-\u001f\u007f]/.test(value))
		return `The value of ${key} must be non-empty text on one line.`;
	if (key === "provider" && !knownProviders.includes(value))
		return `Unknown provider '${value}'. Known: ${knownProviders.join(", ")}.`;
	if (key === "base-url") {
		let protocol = "";
		try {
			protocol = new URL(value).protocol;
		} catch {
			// Reported below.
		}
		if (protocol !== "http:" && protocol !== "https:")
			return `base-url '${value}' is not an http(s) URL. For example: http://localhost:11434/v1 (Ollama).`;
	}
	return undefined;
}

/**
 * Reads the stored defaults; none when the file does not exist. Throws a `UsageError` for a file
 * that is malformed, or that someone else owns or could write: it names the server the API key
 * is sent to, so nobody but the user may choose it.
 */
export function readUserConfig(env: Record<string, string | undefined>): UserConfig {
	const file = userConfigPath(env);
	let text: string;
	try {
		const info = lstatSync(file);
		const foreign = typeof process.getuid === "function" && info.uid !== process.getuid();
		if (!info.isFile() || foreign || (info.mode & 0o022) !== 0)
			throw new UsageError(`${file} is not a plain file only you can write; fix it with: chmod 600 ${file}`, {
				showHelpHint: false,
			});
		if (info.size > MAX_CONFIG_BYTES) throw new UsageError(`${file} is over 64 KB: it is not a toolbelt config.`);
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
		throw error;
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		throw new UsageError(`${file} is not valid JSON (${(error as Error).message}).`, { showHelpHint: false });
	}
	if (typeof data !== "object" || data === null || Array.isArray(data))
		throw new UsageError(`${file} must hold a JSON object.`, { showHelpHint: false });
	const config: UserConfig = {};
	for (const [key, value] of Object.entries(data)) {
		const problem = typeof value === "string" ? checkUserConfigValue(key, value) : `${key} must be a string.`;
		if (problem) throw new UsageError(`${file}: ${problem}`, { showHelpHint: false });
		config[key as UserConfigKey] = value as string;
	}
	return config;
}

/** Writes the defaults atomically: the file 0600, a newly made `~/.toolbelt` 0700. */
export function writeUserConfig(env: Record<string, string | undefined>, config: UserConfig): string {
	const file = userConfigPath(env);
	const made = mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
	if (made !== undefined) chmodSync(dirname(file), 0o700);
	const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
	// `wx`: never follow or reuse a file someone placed at the temp name.
	const handle = openSync(temporary, "wx", 0o600);
	try {
		writeSync(handle, `${JSON.stringify(config, null, 2)}\n`);
		fsyncSync(handle);
	} finally {
		closeSync(handle);
	}
	try {
		renameSync(temporary, file);
	} catch (error) {
		rmSync(temporary, { force: true });
		throw error;
	}
	return file;
}

/**
 * The command-line values with the stored defaults filled in where no flag was given. The stored
 * model and base URL belong to the stored provider: a `--provider` naming another one drops them.
 */
export function withUserDefaults(values: OptionValues, env: Record<string, string | undefined>): OptionValues {
	const stored = readUserConfig(env);
	const given = stringOption(values, "provider");
	const sameProvider = given === undefined || stored.provider === undefined || given === stored.provider;
	const merged: OptionValues = { ...values };
	if (given === undefined && stored.provider !== undefined) merged.provider = stored.provider;
	for (const key of ["model", "base-url"] as const) {
		if (sameProvider && merged[key] === undefined && stored[key] !== undefined) merged[key] = stored[key];
	}
	return merged;
}
