import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { createSafetyLayer, isPermissionBlockDetails, type SafetyLayerOptions } from "../../src/safety/index.js";
import { createBashTool } from "../../src/tools/bash.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "./run-calls.js";

const tempDir = useTempDir();

function paths() {
	return { project: join(tempDir(), "project"), homeDir: join(tempDir(), "home"), outside: join(tempDir(), "outside") };
}

async function setup(
	options: Partial<SafetyLayerOptions> = {},
): Promise<{ tools: AnyAgentTool[]; hooks: ToolHooksOf }> {
	const { project, homeDir, outside } = paths();
	await mkdir(join(project, ".git", "hooks"), { recursive: true });
	await mkdir(outside, { recursive: true });
	const safety = await createSafetyLayer({ cwd: project, homeDir, persistAlways: false, ...options });
	return { tools: [createBashTool(project)], hooks: safety.hooks };
}

type ToolHooksOf = Awaited<ReturnType<typeof createSafetyLayer>>["hooks"];

async function bash(options: Partial<SafetyLayerOptions>, command: string) {
	const { tools, hooks } = await setup(options);
	return runCall(tools, hooks, "bash", { command });
}

describe("redirections are write targets", () => {
	it("an allow rule for a command does not allow writing outside the workspace; the block says so in its details", async () => {
		const { outside, project } = paths();
		const target = join(outside, "x.txt");
		const message = await bash({ rules: { allow: ["bash(echo:*)"] } }, `echo hi > ${target}`);
		expect(message.isError).toBe(true);
		expect(existsSync(target)).toBe(false);
		expect(textOf(message)).toMatch(/writes .*x\.txt, outside the workspace, and no rule names it/);
		const details = message.details;
		expect(isPermissionBlockDetails(details)).toBe(true);
		expect(details).toMatchObject({
			type: "permission",
			kind: "needs-approval",
			toolName: "bash",
			category: "execute",
			writeTarget: { path: target, problem: "outside" },
			suggestedAllowRules: [`bash(echo hi > ${target})`],
		});
		// The suggested rule names the target, so it lets exactly this command write there.
		const named = await bash({ rules: { allow: [`bash(echo hi > ${target})`] } }, `echo hi > ${target}`);
		expect(named.isError, textOf(named)).toBe(false);
		expect(existsSync(target)).toBe(true);
		// Inside the workspace, and to /dev/null, the command's own rule is enough.
		const inside = await bash({ rules: { allow: ["bash(echo:*)"] } }, "echo hi > in.txt 2>/dev/null");
		expect(inside.isError, textOf(inside)).toBe(false);
		expect(existsSync(join(project, "in.txt"))).toBe(true);
	});

	it("a relative target after cd is judged from every directory it may be taken from", async () => {
		const message = await bash({ rules: { allow: ["bash(echo:*)", "bash(cd:*)"] } }, "cd .. && echo hi > escaped.txt");
		expect(message.isError).toBe(true);
		expect(existsSync(join(tempDir(), "escaped.txt"))).toBe(false);
		const unreadable = await bash({ rules: { allow: ["bash(echo:*)", "bash(cd:*)"] } }, 'cd "$HOME" && echo hi > x');
		expect(unreadable.isError).toBe(true);
		expect(textOf(unreadable)).toMatch(/cannot read/);
	});

	it("a redirection into .git needs a rule naming it, also in yolo mode; an edit rule for the path names it", async () => {
		const { project } = paths();
		const hook = join(project, ".git", "hooks", "pre-commit");
		for (const mode of ["default", "yolo"] as const) {
			const message = await bash(
				{ mode, rules: { allow: ["bash(git status:*)"] } },
				`echo planted > .git/hooks/pre-commit`,
			);
			expect(message.isError).toBe(true);
			expect(existsSync(hook)).toBe(false);
			expect(message.details).toMatchObject({ kind: "needs-approval", protectedBy: ".git" });
		}
		const allowed = await bash(
			{ rules: { allow: ["bash(echo:*)", "edit(.git/hooks/**)"] } },
			"echo ok > .git/hooks/pre-commit",
		);
		expect(allowed.isError, textOf(allowed)).toBe(false);
		expect(existsSync(hook)).toBe(true);
	});

	it("edit and write deny rules hold against redirections and tee, also to a path the parser cannot read", async () => {
		const { project } = paths();
		await mkdir(project, { recursive: true });
		await writeFile(join(project, ".env"), "SECRET=1\n");
		for (const command of ["echo x > .env", "echo x | tee -a .env", 'f=.env; echo x > "$f"']) {
			const message = await bash({ mode: "yolo", rules: { deny: ["edit(.env*)"] } }, command);
			expect(message.isError, command).toBe(true);
			expect(textOf(message)).toMatch(/Permission denied/);
			expect(message.details).toMatchObject({ kind: "denied", rule: { text: "edit(.env*)" } });
		}
		expect(await readFile(join(project, ".env"), "utf8")).toBe("SECRET=1\n");
		// An unreadable target needs no approval in yolo mode when no write rule could be at stake.
		const free = await bash({ mode: "yolo" }, 'f=out.txt; echo x > "$f"');
		expect(free.isError, textOf(free)).toBe(false);
	});
});

describe("block details", () => {
	it("a deny through an opaque construct carries the rule and the construct", async () => {
		const message = await bash({ mode: "yolo", rules: { deny: ["bash(rm:*)"] } }, "x=rm; $x f");
		expect(message.details).toMatchObject({
			type: "permission",
			kind: "denied",
			rule: { text: "bash(rm:*)", source: "command line", behavior: "deny" },
			construct: { construct: "expanded command name", text: "$x" },
			suggestedAllowRules: [],
		});
		expect(textOf(message)).toMatch(/write it plainly: name the program literally/);
	});
});

describe("rules are checked when the layer is built", () => {
	it("a misspelt tool in a settings file or a flag is an error naming the rule, its source and the tool meant", async () => {
		const { project, homeDir } = paths();
		await mkdir(join(project, ".toolbelt"), { recursive: true });
		const settings = join(project, ".toolbelt", "settings.json");
		await writeFile(settings, JSON.stringify({ permissions: { deny: ["raed(.env*)"] } }));
		await expect(createSafetyLayer({ cwd: project, homeDir })).rejects.toThrow(
			new RegExp(
				`"raed\\(\\.env\\*\\)".*${settings.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}.*Did you mean "read"`,
				"s",
			),
		);
		await writeFile(settings, "{}");
		await expect(createSafetyLayer({ cwd: project, homeDir, rules: { deny: ["bsah(rm:*)"] } })).rejects.toThrow(
			/--deny flag.*Did you mean "bash"/s,
		);
		await expect(
			createSafetyLayer({ cwd: project, homeDir, rules: { allow: ["deploy"] }, toolNames: ["deploy"] }),
		).resolves.toBeDefined();
	});
});
