import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { aiSdkRequirement } from "../../src/adapters/ai-sdk/requirement.js";
import { checkNodeFor, FrameworkUnavailableError, loadFramework } from "../../src/adapters/shared/load-framework.js";

const srcRoot = fileURLToPath(new URL("../../src/", import.meta.url));

/** Every bare package an ES module graph imports, following relative imports from `entry`. */
function bareImports(entry: string): Set<string> {
	const seen = new Set<string>();
	const packages = new Set<string>();
	const pending = [entry];
	for (let file = pending.pop(); file; file = pending.pop()) {
		if (seen.has(file)) continue;
		seen.add(file);
		const text = readFileSync(file, "utf8");
		// Static and dynamic imports and re-exports, not `import type` (erased at build).
		for (const match of text.matchAll(
			/(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g,
		)) {
			const specifier = match[1] ?? match[2] ?? "";
			if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
			else packages.add(specifier);
		}
	}
	return packages;
}

describe("loading an adapter's framework", () => {
	it("names the package and the version range when the framework is not installed", async () => {
		const requirement = {
			subpath: "toolbelt/example",
			packageName: "toolbelt-no-such-framework",
			versionRange: "^3.0.0",
		};
		const loading = loadFramework(requirement, () => import("toolbelt-no-such-framework" as string));
		await expect(loading).rejects.toThrow(FrameworkUnavailableError);
		await expect(loading).rejects.toThrow(/toolbelt\/example needs the package toolbelt-no-such-framework@\^3\.0\.0/);
		await expect(loading).rejects.toThrow(/npm install toolbelt-no-such-framework@"\^3\.0\.0"/);
	});

	it("names the package, range and Node version when the framework needs a newer Node", () => {
		expect(() => checkNodeFor(aiSdkRequirement, "20.19.0")).toThrow(
			/toolbelt\/ai-sdk needs ai@\^7\.0\.0, which needs Node 22 or newer; this is Node 20\.19\.0/,
		);
		expect(() => checkNodeFor(aiSdkRequirement, "22.12.0")).not.toThrow();
	});

	it("passes other load errors through unchanged", async () => {
		const requirement = { subpath: "toolbelt/example", packageName: "example", versionRange: "^1.0.0" };
		await expect(loadFramework(requirement, () => Promise.reject(new TypeError("boom")))).rejects.toThrow(TypeError);
	});

	it("keeps every framework out of the import graph of the main entry", () => {
		const packages = [...bareImports(`${srcRoot}index.ts`)];
		expect(packages.length).toBeGreaterThan(3);
		expect(packages.filter((name) => /^(ai|ai\/.*|@langchain\/.*|@openai\/agents.*)$/.test(name))).toEqual([]);
	});
});
