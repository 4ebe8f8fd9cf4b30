import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAllTools, workspaceToolsOptions } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall } from "../safety/run-calls.js";
import { closeOpened, openOverSsh, useSshd } from "./sshd-fixture.js";

// A remote stat brings the lstat and the real path along; those answers must never outlive a
// change made through the workspace: a write, or a shell command.

const loopback = useSshd();
afterEach(() => closeOpened(loopback));

describe("metadata fetched ahead", () => {
	const dir = useTempDir();

	it("is dropped by a write and by a shell command", async (context) => {
		if (!loopback.sshd) return context.skip();
		const path = join(dir(), "f.txt");
		writeFileSync(path, "one\n");
		writeFileSync(join(dir(), "other.txt"), "other\n");
		const workspace = openOverSsh(loopback, dir());
		const tools = Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
		expect((await workspace.files.stat(path)).size).toBe(4);
		await workspace.files.replaceFile?.(path, Buffer.from("longer\n"), { mode: 0o644, exactMode: true });
		expect((await workspace.files.lstat(path)).size).toBe(7);
		expect((await workspace.files.stat(path)).kind).toBe("file");
		const linked = await runCall(tools, {}, "bash", { command: "ln -sf other.txt f.txt" });
		expect(linked.isError).toBe(false);
		expect((await workspace.files.lstat(path)).kind).toBe("symlink");
		expect(await workspace.files.realpath(path)).toBe(join(await workspace.files.realpath(dir()), "other.txt"));
	}, 30_000);
});
