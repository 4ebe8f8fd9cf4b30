import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Writes a stand-in `pwsh` into `directory` (to be put on PATH): it decodes `-EncodedCommand`
 * (UTF-16LE base64, as PowerShell does) and prints a JSON line with the arguments before the
 * script and the script itself. `exit N` at the end of the script sets its exit code;
 * `Start-Sleep` makes it hang, so timeouts can be tested. With `FAKE_PWSH_LOG` set in its
 * environment it also appends each script to that file, so a test can tell it never started.
 */
export async function writeFakePwsh(directory: string): Promise<string> {
	const path = join(directory, "pwsh");
	const source = `#!${process.execPath}
const args = process.argv.slice(2);
const index = args.indexOf("-EncodedCommand");
if (index < 0 || index + 1 >= args.length) {
	process.stderr.write("fake pwsh: missing -EncodedCommand\\n");
	process.exit(64);
}
const script = Buffer.from(args[index + 1], "base64").toString("utf16le");
process.stdout.write(JSON.stringify({ args: args.slice(0, index + 1), script }) + "\\n");
if (process.env.FAKE_PWSH_LOG) require("node:fs").appendFileSync(process.env.FAKE_PWSH_LOG, script + "\\n");
if (script.includes("Start-Sleep")) setInterval(() => {}, 1000);
else {
	const exit = /(?:^|\\n)exit (\\d+)\\s*$/.exec(script);
	process.exitCode = exit ? Number(exit[1]) : 0;
}
`;
	await writeFile(path, source);
	await chmod(path, 0o755);
	return path;
}
