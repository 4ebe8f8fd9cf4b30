import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { knowsApplyPatch, selectToolNames } from "../../src/cli/catalog/tool-selection.js";
import * as catalog from "../../src/tools/index.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";

const run = promisify(execFile);

describe("apply_patch in the default tool set", () => {
	it.each(["gpt-5", "gpt-5-mini", "gpt-5.1-codex", "openai/gpt-5", "codex-mini-latest"])(
		"is on for %s, with edit",
		(model) => {
			expect(knowsApplyPatch(model)).toBe(true);
			const names = selectToolNames({}, catalog, "linux", model);
			expect(names).toContain("apply_patch");
			expect(names).toContain("edit");
		},
	);

	it.each(["claude-sonnet-4-5", "gpt-4o", "llama-3.1-70b", "qwen2.5-coder", "gpt-50x"])("is off for %s", (model) => {
		const names = selectToolNames({}, catalog, "linux", model);
		expect(names).not.toContain("apply_patch");
		expect(names).toContain("edit");
	});

	it("follows --tools whatever the model", () => {
		expect(selectToolNames({ tools: "read,apply_patch" }, catalog, "linux", "claude-sonnet-4-5")).toEqual([
			"read",
			"apply_patch",
		]);
		expect(selectToolNames({ tools: "read,edit" }, catalog, "linux", "gpt-5")).toEqual(["read", "edit"]);
	});

	it("is described in the system prompt only when on", () => {
		const tools = (names: string[]) => names.map((name) => catalog.createToolDefinition(name as catalog.ToolName, "/"));
		expect(buildSystemPrompt({ cwd: "/", tools: tools(["read", "apply_patch", "edit"]) })).toMatch(
			/apply_patch: one patch/,
		);
		expect(buildSystemPrompt({ cwd: "/", tools: tools(["read", "edit"]) })).not.toMatch(/apply_patch/);
	});

	it("is listed by toolbelt tools", async () => {
		const { stdout } = await run(process.execPath, [ensureBuiltCli(), "tools"], { env: cleanEnv(), timeout: 20_000 });
		expect(stdout).toMatch(/apply_patch/);
	});
});
