import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { type OptionValues, stringOption, UsageError } from "./args.js";
import type { CliIO } from "./io.js";

/** The tools' working directory: `--cwd` (relative to the process's) or the process's own. Must exist. */
export async function resolveCwd(io: CliIO, values: OptionValues): Promise<string> {
	const given = stringOption(values, "cwd");
	if (given === undefined) return io.cwd;
	const cwd = resolve(io.cwd, given);
	const info = await stat(cwd).catch(() => undefined);
	if (!info?.isDirectory()) throw new UsageError(`--cwd ${given}: no such directory.`, { showHelpHint: false });
	return cwd;
}
