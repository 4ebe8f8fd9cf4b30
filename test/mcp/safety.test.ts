import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { connectStdio, type StdioSession, textOf } from "./helpers.js";

describe("toolbelt mcp applies the safety layer", () => {
	const tempDir = useTempDir();
	let session: StdioSession | undefined;
	afterEach(async () => {
		await session?.client.close();
		session = undefined;
	});

	it("confines the file tools to --cwd and keeps protected paths and --mode in force", async () => {
		const root = join(tempDir(), "project");
		await mkdir(root);
		await writeFile(join(tempDir(), "outside.txt"), "secret\n");
		session = await connectStdio(["--cwd", root, "--mode", "accept-edits"]);

		const outside = await session.client.callTool({ name: "read", arguments: { path: "../outside.txt" } });
		expect(outside.isError).toBe(true);
		expect(textOf(outside)).toMatch(/outside the workspace/i);

		const written = await session.client.callTool({ name: "write", arguments: { path: "notes.md", content: "hi\n" } });
		expect(written.isError).toBeFalsy();
		expect(existsSync(join(root, "notes.md"))).toBe(true);

		const protectedWrite = await session.client.callTool({
			name: "write",
			arguments: { path: ".env", content: "X=1\n" },
		});
		expect(protectedWrite.isError).toBe(true);
		expect(existsSync(join(root, ".env"))).toBe(false);

		const command = await session.client.callTool({ name: "bash", arguments: { command: "touch ran.txt" } });
		expect(command.isError).toBe(true);
		expect(existsSync(join(root, "ran.txt"))).toBe(false);
	});
});
