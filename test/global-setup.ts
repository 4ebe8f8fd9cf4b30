import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Tests that start the built CLI or import the built package need `dist/`. `npm run check` builds
 * before testing; a bare `npm test` on a fresh clone builds here once: tsc's output, and the
 * library's entries that package.json's "exports" name (scripts/bundle-library.mjs).
 */
export default function setup(): void {
	const root = fileURLToPath(new URL("..", import.meta.url));
	if (!existsSync(`${root}/dist/index.js`)) {
		execFileSync(process.execPath, [`${root}/node_modules/typescript/bin/tsc`, "-p", "tsconfig.build.json"], {
			cwd: root,
			stdio: "inherit",
		});
	}
	if (!existsSync(`${root}/dist/bundle/index.js`)) {
		execFileSync(process.execPath, [`${root}/scripts/bundle-library.mjs`], { cwd: root, stdio: "inherit" });
	}
}
