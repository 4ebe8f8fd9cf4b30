/**
 * The entry of the bundled CLI (`scripts/bundle-cli.mjs` → `dist/cli/toolbelt.cjs`): what
 * `bin.ts` needs from it.
 */
export { createProcessIO } from "./io.js";
export { main } from "./main.js";
