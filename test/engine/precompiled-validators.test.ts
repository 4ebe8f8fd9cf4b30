import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateToolArguments as runtimeValidate } from "../../src/engine/validation/validate.js";
import { createAllToolDefinitions } from "../../src/tools/index.js";
import { ensureBuiltCli, repositoryRoot } from "../cli/helpers/cli-binary.js";

const precompiledPath = `${repositoryRoot}dist/engine/validation/precompiled-validators.cjs`;

/** The build's validators; built here when the tree has only tsc's output. */
async function built() {
	ensureBuiltCli();
	if (!existsSync(precompiledPath)) {
		execFileSync(process.execPath, [`${repositoryRoot}scripts/precompile-validators.mjs`], { cwd: repositoryRoot });
	}
	const validate = (await import(`${repositoryRoot}dist/engine/validation/validate.js`)) as {
		validateToolArguments: typeof runtimeValidate;
	};
	const precompiled = (await import(`${repositoryRoot}dist/engine/validation/precompiled-validators.js`)) as {
		precompiledValidator(json: string): unknown;
	};
	return { validate: validate.validateToolArguments, precompiled: precompiled.precompiledValidator };
}

function outcome(run: () => unknown): unknown {
	try {
		return { value: run() };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

describe("precompiled validators", () => {
	it("cover every built-in tool's schema", async () => {
		const { precompiled } = await built();
		for (const definition of Object.values(createAllToolDefinitions("/project"))) {
			const { $schema: _ignored, ...schema } = definition.parameters as Record<string, unknown>;
			expect(typeof precompiled(JSON.stringify(schema)), definition.name).toBe("function");
		}
	});

	it("coerce, default and refuse exactly as the run-time compiler does", async () => {
		const { validate } = await built();
		const definitions = createAllToolDefinitions("/project");
		const samples: [keyof typeof definitions, unknown][] = [
			["read", { path: "a.txt", offset: "10", limit: 5 }],
			["read", { path: 5 }],
			["read", {}],
			["read", { path: "a", extra: true }],
			["grep", { pattern: "x", literal: "true", context: "2" }],
			["grep", { pattern: ["x"] }],
			["edit", { path: "a", edits: [{ old_string: "a", new_string: "b" }] }],
			["edit", { path: "a", edits: "nope" }],
			["bash", { command: "ls", timeout: "-1" }],
			["ls", { path: ".", depth: 0 }],
			["write", { path: "a", content: 12 }],
			["find", { pattern: "**/*.ts", limit: "3" }],
		];
		for (const [name, args] of samples) {
			const definition = definitions[name];
			expect(
				outcome(() => validate(definition, args)),
				`${name} ${JSON.stringify(args)}`,
			).toEqual(outcome(() => runtimeValidate(definition, args)));
		}
	});
});
