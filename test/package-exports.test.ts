import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as {
	main: string;
	types: string;
	bin: Record<string, string>;
	exports: Record<string, string | Record<string, string>>;
};

describe("package manifest", () => {
	it("points main, types, bin and every export at files that exist after the build", () => {
		const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin)];
		for (const entry of Object.values(manifest.exports)) {
			targets.push(...(typeof entry === "string" ? [entry] : Object.values(entry)));
		}
		const missing = targets.filter((target) => !existsSync(`${root}/${target}`));
		expect(missing).toEqual([]);
	});

	it("loads every JavaScript subpath export", async () => {
		for (const [subpath, entry] of Object.entries(manifest.exports)) {
			const target = typeof entry === "string" ? entry : entry.import;
			if (!target?.endsWith(".js")) continue;
			const module = await import(`${root}/${target}`);
			expect(Object.keys(module).length, `exports of ${subpath}`).toBeGreaterThan(0);
		}
	});
});
