import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Tests that start the built CLI need `dist/`. `npm run check` builds before testing; a bare
 * `npm test` on a fresh clone builds here once.
 */
export default function setup(): void {
	const root = fileURLToPath(new URL("..", import.meta.url));
	if (existsSync(`${root}/dist/index.js`)) return;
	execFileSync(process.execPath, [`${root}/node_modules/typescript/bin/tsc`, "-p", "tsconfig.build.json"], {
		cwd: root,
		stdio: "inherit",
	});
}
