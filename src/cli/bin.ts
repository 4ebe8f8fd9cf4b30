#!/usr/bin/env node
import nodeModule from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

// Node 22.1+ keeps the compiled code of the CLI's modules on disk between starts. Never in the
// shared temp folder (its default): another local user could plant code there that this process
// would run. The user's own cache folder instead; NODE_DISABLE_COMPILE_CACHE=1 turns it off, and
// older Node has no such call, so nothing changes there.
const cacheHome = isAbsolute(process.env.XDG_CACHE_HOME ?? "")
	? (process.env.XDG_CACHE_HOME as string)
	: join(homedir(), ".cache");
(nodeModule as { enableCompileCache?: (directory: string) => unknown }).enableCompileCache?.(
	join(cacheHome, "toolbelt", "node-compile-cache"),
);

// Loaded after the cache is on, so that they are what it covers.
const { createProcessIO } = await import("./io.js");
const { main } = await import("./main.js");

const code = await main(process.argv.slice(2), createProcessIO());
// Flush piped output before exiting; a lingering handle (stdin, a timer) must not keep us alive.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
