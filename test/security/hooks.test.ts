// Red team: PreToolUse command hooks are guards. A hook whose answer toolbelt cannot act on
// (an unknown permissionDecision, a decision of the wrong shape or for the wrong event) must block
// the call, in the built CLI as a user runs it. The hooks live in the user's own settings file
// (under a temp HOME), so folder trust does not decide whether they run.
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { textOf } from "../mcp/helpers.js";

const tempDir = useTempDir();
const cli = new CliProcesses();

afterEach(() => cli.killAll());

/** A temp HOME whose ~/.toolbelt/settings.json runs a PreToolUse hook on bash printing `answer`. */
async function homeWithHook(answer: string): Promise<{ home: string; project: string; hook: string }> {
	const home = join(tempDir(), "home");
	const project = join(tempDir(), "project");
	await mkdir(join(home, ".toolbelt"), { recursive: true });
	await mkdir(project, { recursive: true });
	const answerFile = join(home, "answer.json");
	await writeFile(answerFile, answer);
	const hook = join(home, "guard.sh");
	await writeFile(hook, `#!/bin/sh\ncat > /dev/null\ncat "${answerFile}"\n`);
	await chmod(hook, 0o755);
	const settings = { hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: hook }] }] } };
	await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings));
	return { home, project, hook };
}

const answers: [string, string, RegExp][] = [
	["maybe", '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}', /"maybe"/],
	["a number", '{"hookSpecificOutput":{"permissionDecision":0}}', /permissionDecision: 0/],
	[
		"the wrong event",
		'{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}',
		/"PostToolUse"/,
	],
	["an unknown legacy decision", '{"decision":"allow"}', /decision: "allow"/],
	["JSON behind a log line", 'ok\n{"hookSpecificOutput":{"permissionDecision":"deny"}}', /mixed with other text/],
];

describe("a PreToolUse hook answer toolbelt cannot act on blocks the call", () => {
	for (const [name, answer, problem] of answers) {
		it(`toolbelt tool bash: ${name}`, async () => {
			const { home, project, hook } = await homeWithHook(answer);
			const marker = join(project, "ran");
			const run = await cli.run(["tool", "bash", JSON.stringify({ command: `touch ${marker}` }), "--cwd", project], {
				env: cleanEnv({ HOME: home }),
			});
			expect(existsSync(marker)).toBe(false);
			expect(run.code).toBe(1);
			expect(run.stderr).toContain(`PreToolUse hook "${hook}"`);
			expect(run.stderr).toMatch(problem);
		});
	}

	it('toolbelt mcp (yolo by default): permissionDecision "maybe" blocks the call', async () => {
		const { home, project, hook } = await homeWithHook('{"hookSpecificOutput":{"permissionDecision":"maybe"}}');
		const marker = join(project, "ran");
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [ensureBuiltCli(), "mcp", "--cwd", project],
			env: cleanEnv({ HOME: home }),
			stderr: "pipe",
		});
		const client = new Client({ name: "red-team", version: "1" });
		await client.connect(transport);
		try {
			const result = await client.callTool({ name: "bash", arguments: { command: `touch ${marker}` } });
			expect(result.isError).toBe(true);
			expect(textOf(result)).toContain(`PreToolUse hook "${hook}"`);
			expect(textOf(result)).toMatch(/"maybe"/);
			expect(existsSync(marker)).toBe(false);
		} finally {
			await client.close();
		}
	});

	it("a well-formed allow still lets the call run (the guard is not simply always closed)", async () => {
		const { home, project } = await homeWithHook('{"hookSpecificOutput":{"permissionDecision":"allow"}}');
		const marker = join(project, "ran");
		const run = await cli.run(["tool", "bash", JSON.stringify({ command: `touch ${marker}` }), "--cwd", project], {
			env: cleanEnv({ HOME: home }),
		});
		expect(run.code).toBe(0);
		expect(existsSync(marker)).toBe(true);
	});
});
