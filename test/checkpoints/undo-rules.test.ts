import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { createCliCheckpoints } from "../../src/cli/setup/safety-setup.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createTools } from "../../src/tools/index.js";
import { createLocalWorkspace } from "../../src/workspace/index.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { noSettings } from "../helpers/no-settings.js";
import { useTempDir } from "../helpers/temp-dir.js";

// Undo is judged by the permission rules the session uses, not only by the built-in protected
// paths: a path a deny rule names for writes is listed as not restored, and nothing is written.

const dir = useTempDir();

function folders() {
	const root = realpathSync(dir());
	const project = join(root, "project");
	const home = join(root, "home");
	mkdirSync(join(project, "secrets"), { recursive: true });
	mkdirSync(join(home, ".toolbelt"), { recursive: true });
	writeFileSync(join(project, "secrets", "key.txt"), "old key\n");
	writeFileSync(join(project, "notes.txt"), "old notes\n");
	return { project, home, env: { HOME: home, XDG_STATE_HOME: join(root, "state") } };
}

describe("undo under the session's permission rules", () => {
	it("toolbelt undo lists a path a deny rule of the user's settings names, and restores the rest", async () => {
		const { project, home, env } = folders();
		const { io } = createMemoryIO({ cwd: project, env });
		const checkpoints = await createCliCheckpoints(project, io);
		const tools = Object.values(createTools(createLocalWorkspace(project)));
		let id = 0;
		for (const [path, content] of [
			["secrets/key.txt", "new key\n"],
			["notes.txt", "new notes\n"],
		]) {
			const toolCalls = [{ type: "toolCall" as const, id: String(++id), name: "write", arguments: { path, content } }];
			const { messages } = await executeToolCalls({ tools, toolCalls, ...checkpoints.hooks });
			expect(messages[0]?.isError).toBe(false);
		}
		writeFileSync(
			join(home, ".toolbelt", "settings.json"),
			JSON.stringify({ permissions: { deny: ["edit(secrets/**)"] } }),
		);
		const undo = createMemoryIO({ cwd: project, env });
		const code = await main(["undo", "--cwd", project], undo.io);
		expect(undo.stderr()).toMatch(
			/Not restored, nothing written there[\s\S]*secrets\/key\.txt: denied by the rule edit\(secrets\/\*\*\)/,
		);
		expect(code).not.toBe(0);
		expect(readFileSync(join(project, "secrets", "key.txt"), "utf8")).toBe("new key\n");
		expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("old notes\n");
	});

	it("a session's judge refuses what its deny rules name, command-line rules included", async () => {
		const { project, home } = folders();
		const layer = await createSafetyLayer({
			cwd: project,
			homeDir: home,
			mode: "yolo",
			settings: noSettings,
			rules: { deny: ["write(secrets/**)", "edit(*.lock)", "edit"] },
		});
		expect(await layer.judgeRestore(join(project, "secrets", "key.txt"))).toMatch(/denied by the rule write\(secrets/);
		expect(await layer.judgeRestore(join(project, "deps.lock"))).toMatch(/denied by the rule edit\(\*\.lock\)/);
		// Denying the edit tool outright is about the model's calls, not a path: undo may put notes back.
		expect(await layer.judgeRestore(join(project, "notes.txt"))).toBeUndefined();
		expect(await layer.judgeRestore(join(project, ".git", "hooks", "pre-commit"))).toMatch(/protected path/);
	});
});
