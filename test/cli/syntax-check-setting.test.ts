// The settings key `edit.syntaxCheck` reaches every tool that changes files, through `toolbelt tool`
// (the same set-up as `toolbelt run` and `toolbelt mcp`): "off" applies a break unread, "warn" applies
// it with a warning, the default refuses it, and a value the schema does not know is a usage error.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { createMemoryIO } from "./helpers/memory-io.js";

const temp = useTempDir();
const SOURCE = "export function total(items: number[]): number {\n\treturn items.reduce((a, b) => a + b, 0);\n}\n";
const BREAK = { old_string: "items.reduce(", new_string: "items.reduce((" };

async function editWith(syntaxCheck: unknown) {
	const home = join(temp(), "home");
	const project = join(temp(), "project");
	await mkdir(join(home, ".toolbelt"), { recursive: true });
	await mkdir(project, { recursive: true });
	if (syntaxCheck !== undefined) {
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify({ edit: { syntaxCheck } }));
	}
	const file = join(project, "total.ts");
	await writeFile(file, SOURCE);
	const memory = createMemoryIO({ cwd: project, env: { HOME: home, PATH: process.env.PATH } });
	const code = await main(["tool", "edit", JSON.stringify({ path: "total.ts", ...BREAK })], memory.io);
	return { code, stdout: memory.stdout(), stderr: memory.stderr(), after: await readFile(file, "utf8") };
}

describe("edit.syntaxCheck in the settings", () => {
	it("refuses a break by default and leaves the file", async () => {
		const result = await editWith(undefined);
		expect(result.code).not.toBe(0);
		expect(result.stdout + result.stderr).toContain("allow_syntax_errors: true");
		expect(result.after).toBe(SOURCE);
	});

	it('"warn" applies the break and says where the error is', async () => {
		const result = await editWith("warn");
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/\[Syntax: .*line 2, column \d+/s);
		expect(result.after).toContain("items.reduce((");
	});

	it('"off" applies the break without reading it', async () => {
		const result = await editWith("off");
		expect(result.code).toBe(0);
		expect(result.stdout).not.toContain("[Syntax:");
		expect(result.after).toContain("items.reduce((");
	});

	it("a value it does not know is a usage error naming the key", async () => {
		const result = await editWith("sometimes");
		expect(result.code).toBe(2);
		expect(result.stderr).toContain("edit.syntaxCheck");
		expect(result.after).toBe(SOURCE);
	});
});
