#!/usr/bin/env node
// The ES module entry (`node dist/cli/bin.js`); the package's bin is `bin.cjs`, which Node
// starts sooner. Both run `start.ts`: as the one CommonJS file `npm run build` makes of it and
// the loader (`start.cjs`, read synchronously: Node's ES module loader would open, stat, read
// and close each module on its thread pool, hand-overs a loaded machine makes wait), else as
// tsc's modules.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

type Start = typeof import("./start.js");

let start: Start;
try {
	start = createRequire(import.meta.url)("./start.cjs") as Start;
} catch {
	start = await import("./start.js");
}
await start.startCli(fileURLToPath(new URL(".", import.meta.url)));
