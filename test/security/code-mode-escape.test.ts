// Red-team tests: a code-mode program tries to leave its interpreter — Node's process, require,
// the host's constructors, Function/eval, prototype pollution through its returned value, deep
// recursion and a huge string — to write a file on the host. Through the built CLI as a user starts
// it, as root and as an unprivileged user; each attempt must leave no file and no host effect.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
vi.setConfig({ testTimeout: 180_000 });
afterEach(() => cli.killAll());

/** Each attempt tries to create `escaped` (an absolute path, in the program as ESCAPED). */
const attempts: Record<string, string> = {
	process: `process.mainModule.require("fs").writeFileSync(ESCAPED, "x")`,
	require: `require("fs").writeFileSync(ESCAPED, "x")`,
	"import()": `const fs = await import("fs"); fs.writeFileSync(ESCAPED, "x")`,
	"a constructor's Function": `const host = tools.read.constructor.constructor("return this")(); host.process.mainModule.require("fs").writeFileSync(ESCAPED, "x")`,
	"globalThis.constructor": `globalThis.constructor.constructor("return process")().mainModule.require("fs").writeFileSync(ESCAPED, "x")`,
	eval: `eval("this.process").binding("fs"); (0, eval)("process").mainModule.require("fs").writeFileSync(ESCAPED, "x")`,
	"an error's prepareStackTrace": `Error.prepareStackTrace = (error, frames) => frames[0].getThis().process.mainModule.require("fs").writeFileSync(ESCAPED, "x"); new Error("x").stack`,
	"prototype pollution of the result": `return JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}')`,
	"deep recursion": `const deep = (n) => deep(n + 1) + 1; return deep(0)`,
	"a huge string": `return "x".repeat(50_000_000)`,
};

describe.each(testUsers())("code mode escape attempts, as %s", (user: TestUser) => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	for (const [name, attempt] of Object.entries(attempts)) {
		it(`${name} reaches nothing outside the interpreter`, async () => {
			const project = join(tempDir(), "project");
			await mkdir(project, { recursive: true });
			await handOver(tempDir(), user);
			const escaped = join(project, "escaped");
			const code = `const ESCAPED = ${JSON.stringify(escaped)};\n${attempt}`;
			const run = await cli.run(["tool", "code", JSON.stringify({ code })], {
				cwd: project,
				env: cleanEnv({ HOME: join(tempDir(), "home"), XDG_STATE_HOME: join(tempDir(), "state") }),
				user,
			});
			expect(run.signal).toBeNull();
			expect([0, 1]).toContain(run.code);
			expect(existsSync(escaped), run.stdout + run.stderr).toBe(false);
		});
	}

	it("the positive control: the same program writes through tools.write", async () => {
		const project = join(tempDir(), "project");
		await mkdir(project, { recursive: true });
		await handOver(tempDir(), user);
		const run = await cli.run(
			["tool", "code", JSON.stringify({ code: `await tools.write({ path: "through-tools", content: "x" })` })],
			{
				cwd: project,
				env: cleanEnv({ HOME: join(tempDir(), "home"), XDG_STATE_HOME: join(tempDir(), "state") }),
				user,
			},
		);
		expect(run.code, run.stderr).toBe(0);
		expect(existsSync(join(project, "through-tools"))).toBe(true);
	});
});
