#!/usr/bin/env node
import { createProcessIO } from "./io.js";
import { main } from "./main.js";

const code = await main(process.argv.slice(2), createProcessIO());
// Flush piped output before exiting; a lingering handle (stdin, a timer) must not keep us alive.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
