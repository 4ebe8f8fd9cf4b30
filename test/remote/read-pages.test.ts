import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAllTools, createLocalWorkspace, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { closeOpened, openOverSsh, useSshd } from "./sshd-fixture.js";

// The remote side skips lines itself (grep -m or head -n leaving the file just past them, or
// head | wc where neither does): every offset must page exactly as a local read does, at the end
// of the file, past it, and with or without a final newline.

const loopback = useSshd();
afterEach(() => closeOpened(loopback));

async function page(workspace: Workspace, args: Record<string, unknown>): Promise<string> {
	const tools = Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
	const result = await runCall(tools, {}, "read", args);
	return `${result.isError ? "error: " : ""}${textOf(result)}`;
}

describe("remote read pages like a local read", () => {
	const dir = useTempDir();

	it("at every offset near the end, with and without a final newline, and past the end", async (context) => {
		if (!loopback.sshd) return context.skip();
		const lines = Array.from({ length: 50 }, (_, index) => `line ${index + 1} ${"x".repeat(index % 7)}`);
		writeFileSync(join(dir(), "ends.txt"), `${lines.join("\n")}\n`);
		writeFileSync(join(dir(), "open.txt"), lines.join("\n"));
		writeFileSync(join(dir(), "bom.txt"), `\uFEFF${lines.join("\r\n")}\r\n`);
		const local = createLocalWorkspace(dir());
		const remote = openOverSsh(loopback, dir());
		for (const path of ["ends.txt", "open.txt", "bom.txt"]) {
			for (const offset of [1, 2, 25, 48, 49, 50, 51, 52, 80]) {
				for (const limit of [1, 3]) {
					const args = { path, offset, limit };
					expect(await page(remote, args), JSON.stringify(args)).toBe(await page(local, args));
				}
			}
		}
	}, 60_000);
});
