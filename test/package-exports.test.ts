import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nodeMajor } from "../src/adapters/shared/load-framework.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as {
	main: string;
	types: string;
	bin: Record<string, string>;
	exports: Record<string, string | Record<string, string>>;
	dependencies?: Record<string, string>;
	peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** Adapter subpaths whose framework needs a newer Node than toolbelt's own minimum. */
const nodeFrameworkSubpaths: Record<string, number> = { "./ai-sdk": 22, "./openai-agents": 22 };

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
			const needsNode = nodeFrameworkSubpaths[subpath];
			if (needsNode && nodeMajor() < needsNode) {
				// The framework cannot run here: the subpath must say so, naming the package and range.
				await expect(import(`${root}/${target}`), subpath).rejects.toThrow(/needs .+@.+ Node \d+ or newer/);
				continue;
			}
			const module = await import(`${root}/${target}`);
			expect(Object.keys(module).length, `exports of ${subpath}`).toBeGreaterThan(0);
		}
	});

	it("offers the framework adapters and the fake model as subpaths, with the frameworks as optional peers", () => {
		for (const subpath of ["./ai-sdk", "./langchain", "./openai-agents", "./testing"]) {
			expect(manifest.exports[subpath], subpath).toBeDefined();
		}
		for (const name of ["ai", "@langchain/core", "@openai/agents"]) {
			expect(manifest.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
			expect(manifest.dependencies?.[name], name).toBeUndefined();
		}
	});
});
