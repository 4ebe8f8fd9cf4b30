import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	addRulesToSettingsFile,
	loadSettings,
	projectSettingsPath,
	SettingsError,
	userSettingsPath,
} from "../../src/safety/settings/settings.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();

async function writeJson(file: string, value: unknown) {
	await mkdir(join(file, ".."), { recursive: true });
	await writeFile(file, typeof value === "string" ? value : JSON.stringify(value));
}

function dirs() {
	return { projectDir: join(tempDir(), "project"), homeDir: join(tempDir(), "home") };
}

describe("loadSettings", () => {
	it("returns empty settings when no file exists", async () => {
		const loaded = await loadSettings(dirs());
		expect(loaded.sources).toEqual([]);
		expect(loaded.rules).toEqual([]);
		expect(loaded.defaultMode).toBeUndefined();
	});

	it("merges user and project files: rules and hooks from both, single values from the project", async () => {
		const { projectDir, homeDir } = dirs();
		await writeJson(userSettingsPath(homeDir), {
			permissions: { allow: ["bash(git status)"], deny: ["read(~/.ssh/**)"], defaultMode: "read-only" },
			hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: "user-hook" }] }] },
			sandbox: { enabled: true, allowNetwork: true },
			model: "some other tool's key is fine",
		});
		await writeJson(projectSettingsPath(projectDir), {
			permissions: { allow: ["edit(src/**)"], defaultMode: "accept-edits", additionalDirectories: ["../shared"] },
			hooks: {
				PreToolUse: [{ hooks: [{ type: "command", command: "project-hook", timeout: 5, onError: "continue" }] }],
			},
			sandbox: { allowNetwork: false },
		});
		const loaded = await loadSettings({ projectDir, homeDir, trustProject: true });
		expect(loaded.sources.map((source) => source.scope)).toEqual(["user", "project"]);
		expect(loaded.rules.map((rule) => `${rule.behavior} ${rule.text} ${rule.source}`)).toEqual([
			`deny read(~/.ssh/**) ${userSettingsPath(homeDir)}`,
			`allow bash(git status) ${userSettingsPath(homeDir)}`,
			`allow edit(src/**) ${projectSettingsPath(projectDir)}`,
		]);
		expect(loaded.defaultMode).toBe("accept-edits");
		expect(loaded.preToolUse.map((entry) => entry.hooks[0]?.command)).toEqual(["user-hook", "project-hook"]);
		expect(loaded.sandbox).toEqual({ enabled: true, allowNetwork: false });
		expect(loaded.additionalDirectories).toEqual([join(tempDir(), "shared")]);
	});

	it.each([
		["{ not json", /not valid JSON/],
		["[]", /top level must be a JSON object/],
		[{ permissions: { allow: "bash" } }, /permissions\.allow: must be array/],
		[{ permissions: { allow: [42] } }, /permissions\.allow\[0\]: must be string/],
		[{ permissions: { defaultMode: "careless" } }, /permissions\.defaultMode/],
		[{ permissions: { alow: [] } }, /unknown key "alow"/],
		[{ permissions: { deny: ["bash("] } }, /permissions\.deny\[0\]: Invalid permission rule "bash\("/],
		[
			{ hooks: { PreToolUse: [{ matcher: "(", hooks: [] }] } },
			/hooks\.PreToolUse\[0\]\.matcher is not a valid regular expression/,
		],
		[
			{ hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } },
			/hooks\.PreToolUse\[0\]\.hooks\[0\]: must have required property 'command'/,
		],
		[{ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "x", onError: "maybe" }] }] } }, /onError/],
	])("a malformed file is an error naming the file and the problem: %j", async (content, problem) => {
		const { projectDir, homeDir } = dirs();
		const file = projectSettingsPath(projectDir);
		await writeJson(file, content);
		const error = await loadSettings({ projectDir, homeDir }).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(SettingsError);
		expect((error as SettingsError).message).toContain(file);
		expect((error as SettingsError).message).toMatch(problem);
	});
});

describe("addRulesToSettingsFile", () => {
	it("creates the file, adds rules once, and keeps everything else", async () => {
		const file = projectSettingsPath(join(tempDir(), "project"));
		await addRulesToSettingsFile({ file, rules: ["bash(npm test)"] });
		expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ permissions: { allow: ["bash(npm test)"] } });
		await writeJson(file, { permissions: { allow: ["bash(npm test)"], deny: ["bash(rm:*)"] }, hooks: {}, other: 1 });
		await addRulesToSettingsFile({ file, rules: ["bash(npm test)", "write(/a.ts)"] });
		expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
			permissions: { allow: ["bash(npm test)", "write(/a.ts)"], deny: ["bash(rm:*)"] },
			hooks: {},
			other: 1,
		});
	});
});
