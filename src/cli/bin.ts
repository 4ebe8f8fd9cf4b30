#!/usr/bin/env node
import nodeModule from "node:module";

// Node 22.1+ keeps the compiled code of the CLI's modules on disk between starts (in the OS temp
// folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off). Older Node has no such call: nothing changes.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// Loaded after the cache is on, so that they are what it covers.
const { createProcessIO } = await import("./io.js");
const { main } = await import("./main.js");

const code = await main(process.argv.slice(2), createProcessIO());
// Flush piped output before exiting; a lingering handle (stdin, a timer) must not keep us alive.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
