import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
// @ts-expect-error A build script in plain JavaScript, without type declarations.
import { ajvOnFirstUse, ajvOnFirstUsePlugin } from "../../scripts/ajv-on-first-use.mjs";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();
const require = createRequire(import.meta.url);
// The ES module build, which the bundles take (a CommonJS `require` resolves to the other build).
const providerPath = require
	.resolve("@modelcontextprotocol/sdk/validation/ajv-provider.js")
	.replace(/([\\/])dist[\\/]cjs[\\/]/, "$1dist$1esm$1");

/** Marks Ajv's main module, so that a bundle tells whether Ajv's code ran (in the `marks` it is run with). */
const markAjv: esbuild.Plugin = {
	name: "mark-ajv",
	setup(build) {
		build.onLoad({ filter: /[\\/]node_modules[\\/]ajv[\\/]dist[\\/]ajv\.js$/ }, async (args) => ({
			contents: `${await readFile(args.path, "utf8")}\nmarks.ajvRan += 1;\n`,
			loader: "js",
		}));
	},
};

interface Provider {
	AjvJsonSchemaValidator: new () => {
		getValidator: (schema: object) => (input: unknown) => { valid: boolean; errorMessage?: string };
	};
}

/** Bundles the SDK's validator module as the `mcp` bundle does (CommonJS), with or without the change, and loads it. */
async function loadBundled(
	lazy: boolean,
): Promise<{ provider: Provider; ranAtLoad: number; marks: { ajvRan: number } }> {
	const entry = join(tempDir(), "entry.mjs");
	await writeFile(entry, `export { AjvJsonSchemaValidator } from ${JSON.stringify(providerPath)};\n`);
	const result = await esbuild.build({
		entryPoints: [entry],
		bundle: true,
		format: "cjs",
		platform: "node",
		write: false,
		plugins: lazy ? [ajvOnFirstUsePlugin(), markAjv] : [markAjv],
		logLevel: "silent",
	});
	const marks = { ajvRan: 0 };
	const module = { exports: {} as Provider };
	new Function("module", "exports", "require", "marks", result.outputFiles[0]?.text ?? "")(
		module,
		module.exports,
		require,
		marks,
	);
	return { provider: module.exports, ranAtLoad: marks.ajvRan, marks };
}

describe("the MCP SDK's validator with Ajv loaded on first use (scripts/ajv-on-first-use.mjs)", () => {
	it("loading the module runs none of Ajv; the first validator loads it and validates", async () => {
		const eager = await loadBundled(false);
		// The SDK as published: Ajv runs as the module loads (what every `toolbelt mcp` start paid).
		expect(eager.ranAtLoad).toBe(1);
		const lazy = await loadBundled(true);
		expect(lazy.ranAtLoad).toBe(0);
		const validate = new lazy.provider.AjvJsonSchemaValidator().getValidator({
			type: "object",
			properties: { when: { type: "string", format: "date" } },
			required: ["when"],
		});
		expect(lazy.marks.ajvRan).toBe(1);
		expect(validate({ when: "2026-12-05" }).valid).toBe(true);
		// The formats came along: a date that is not one is refused, in Ajv's words.
		const refused = validate({ when: "yesterday" });
		expect(refused.valid).toBe(false);
		expect(refused.errorMessage).toContain("format");
	});

	it("refuses to build from a validator module it does not know (an SDK update changed it)", () => {
		const text = readFileSync(providerPath, "utf8");
		expect(() => ajvOnFirstUse(text.replace("import Ajv from 'ajv';", 'import Ajv from "ajv";'))).toThrow(
			/no longer imports Ajv as expected/,
		);
		expect(ajvOnFirstUse(text)).not.toMatch(/^import .* from 'ajv/m);
	});
});
