import { type ParsedArgs, UsageError } from "../args.js";
import { type CliIO, ExitCode } from "../io.js";
import {
	checkUserConfigKey,
	checkUserConfigValue,
	readUserConfig,
	type UserConfig,
	type UserConfigKey,
	userConfigKeys,
	userConfigPath,
	writeUserConfig,
} from "../setup/user-config.js";

const usage = "toolbelt config set <key> <value> | get [<key>] | unset <key> | list";

function keyOf(text: string | undefined, action: string): UserConfigKey {
	if (text === undefined) throw new UsageError(`config ${action} needs a key: ${userConfigKeys.join(", ")}.`);
	const problem = checkUserConfigKey(text);
	if (problem) throw new UsageError(problem, { showHelpHint: false });
	return text as UserConfigKey;
}

function listing(config: UserConfig, io: CliIO): string {
	const lines = userConfigKeys.flatMap((key) => (config[key] === undefined ? [] : [`${key} = ${config[key]}`]));
	return lines.length > 0 ? `${lines.join("\n")}\n` : `(nothing stored in ${userConfigPath(io.env)})\n`;
}

/**
 * `toolbelt config`: the defaults `run` and the session use when no flag is given (provider, model,
 * base URL), in `~/.toolbelt/config.json` (0600). Exit 2 for an unknown key or a bad value.
 */
export async function runConfigCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	const [action, key, value, ...extra] = args.positionals;
	if (extra.length > 0) throw new UsageError(`Too many arguments. Usage: ${usage}`);
	const config = readUserConfig(io.env);
	switch (action) {
		case undefined:
		case "list":
			io.stdout.write(listing(config, io));
			return ExitCode.ok;
		case "get": {
			if (key === undefined) {
				io.stdout.write(listing(config, io));
				return ExitCode.ok;
			}
			const stored = config[keyOf(key, "get")];
			if (stored === undefined) {
				io.stderr.write(`toolbelt: ${key} is not set (toolbelt config set ${key} <value>).\n`);
				return ExitCode.error;
			}
			io.stdout.write(`${stored}\n`);
			return ExitCode.ok;
		}
		case "set": {
			const name = keyOf(key, "set");
			if (value === undefined) throw new UsageError(`config set ${name} needs a value.`);
			const problem = checkUserConfigValue(name, value);
			if (problem) throw new UsageError(problem, { showHelpHint: false });
			const file = writeUserConfig(io.env, { ...config, [name]: value });
			io.stderr.write(`toolbelt: ${name} = ${value} (in ${file})\n`);
			return ExitCode.ok;
		}
		case "unset": {
			const name = keyOf(key, "unset");
			const { [name]: _dropped, ...rest } = config;
			writeUserConfig(io.env, rest);
			return ExitCode.ok;
		}
		default:
			throw new UsageError(`Unknown config action '${action}'. Usage: ${usage}`);
	}
}
