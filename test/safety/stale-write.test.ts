import { existsSync } from "node:fs";
import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createStaleWriteHooks, SeenFiles } from "../../src/safety/stale-write.js";
import { createEditTool } from "../../src/tools/edit.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, runCalls, textOf } from "./run-calls.js";

const tempDir = useTempDir();

function tools(): AnyAgentTool[] {
	return [createReadTool(tempDir()), createWriteTool(tempDir()), createEditTool(tempDir())];
}

describe("stale-write protection", () => {
	it("refuses an edit after an outside change and keeps the outside change", async () => {
		const file = join(tempDir(), "a.txt");
		await writeFile(file, "one\ntwo\n");
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		expect((await runCall(tools(), hooks, "read", { path: "a.txt" })).isError).toBe(false);
		await writeFile(file, "one\ntwo\nadded by the user\n");
		const edit = await runCall(tools(), hooks, "edit", { path: "a.txt", old_string: "two", new_string: "TWO" });
		expect(edit.isError).toBe(true);
		expect(textOf(edit)).toContain("changed on disk since you last read it; read it again");
		expect(await readFile(file, "utf8")).toBe("one\ntwo\nadded by the user\n");
		// After reading again, the edit goes through.
		await runCall(tools(), hooks, "read", { path: "a.txt" });
		expect(
			(await runCall(tools(), hooks, "edit", { path: "a.txt", old_string: "two", new_string: "TWO" })).isError,
		).toBe(false);
		expect(await readFile(file, "utf8")).toBe("one\nTWO\nadded by the user\n");
	});

	it("is part of the safety layer unless checkStaleWrites is false (a process that makes one call)", async () => {
		const file = join(tempDir(), "a.txt");
		const home = join(tempDir(), "home");
		for (const checkStaleWrites of [undefined, false]) {
			await writeFile(file, "one\ntwo\n");
			const safety = await createSafetyLayer({ cwd: tempDir(), homeDir: home, mode: "yolo", checkStaleWrites });
			expect((await runCall(tools(), safety.hooks, "read", { path: "a.txt" })).isError).toBe(false);
			await writeFile(file, "one\ntwo\nadded by the user\n");
			const edit = await runCall(tools(), safety.hooks, "edit", {
				path: "a.txt",
				old_string: "two",
				new_string: "TWO",
			});
			expect(edit.isError, textOf(edit)).toBe(checkStaleWrites === undefined);
			expect(safety.seenFiles.size).toBe(checkStaleWrites === undefined ? 1 : 0);
		}
	});

	it("refuses a write after an outside change", async () => {
		const file = join(tempDir(), "a.txt");
		await writeFile(file, "v1\n");
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		await runCall(tools(), hooks, "read", { path: "a.txt" });
		await writeFile(file, "v2\n");
		const write = await runCall(tools(), hooks, "write", { path: "a.txt", content: "mine\n" });
		expect(write.isError).toBe(true);
		expect(await readFile(file, "utf8")).toBe("v2\n");
	});

	it("the model's own consecutive edits and writes never trip it", async () => {
		const file = join(tempDir(), "a.txt");
		await writeFile(file, "a b c d\n");
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		await runCall(tools(), hooks, "read", { path: "a.txt" });
		const messages = await runCalls(tools(), hooks, [
			["edit", { path: "a.txt", old_string: "a", new_string: "A" }],
			["edit", { path: "a.txt", old_string: "b", new_string: "B" }],
			["write", { path: "a.txt", content: "A B c d\nmore\n" }],
			["edit", { path: "a.txt", old_string: "more", new_string: "MORE" }],
		]);
		expect(messages.map((message) => message.isError)).toEqual([false, false, false, false]);
		expect(await readFile(file, "utf8")).toBe("A B c d\nMORE\n");
	});

	it("a file touched with identical content does not count as changed", async () => {
		const file = join(tempDir(), "a.txt");
		await writeFile(file, "same\n");
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		await runCall(tools(), hooks, "read", { path: "a.txt" });
		await writeFile(file, "same\n");
		const later = new Date(Date.now() + 60_000);
		await utimes(file, later, later);
		expect(
			(await runCall(tools(), hooks, "edit", { path: "a.txt", old_string: "same", new_string: "new" })).isError,
		).toBe(false);
	});

	it("a same-size rewrite is caught even when the mtime is unchanged", async () => {
		const file = join(tempDir(), "a.txt");
		await writeFile(file, "aaaa\n");
		const fixed = new Date(1_700_000_000_000);
		await utimes(file, fixed, fixed);
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		await runCall(tools(), hooks, "read", { path: "a.txt" });
		await writeFile(file, "bbbb\n");
		await utimes(file, fixed, fixed);
		expect((await runCall(tools(), hooks, "write", { path: "a.txt", content: "x" })).isError).toBe(true);
		expect(await readFile(file, "utf8")).toBe("bbbb\n");
	});

	it("write over an existing file never read is refused unless allowed; new files are fine", async () => {
		await writeFile(join(tempDir(), "existing.txt"), "precious\n");
		const refused = createStaleWriteHooks({ cwd: tempDir() });
		const blocked = await runCall(tools(), refused, "write", { path: "existing.txt", content: "clobbered\n" });
		expect(blocked.isError).toBe(true);
		expect(textOf(blocked)).toMatch(/have not read it/);
		expect(await readFile(join(tempDir(), "existing.txt"), "utf8")).toBe("precious\n");
		expect((await runCall(tools(), refused, "write", { path: "fresh.txt", content: "new\n" })).isError).toBe(false);
		expect(existsSync(join(tempDir(), "fresh.txt"))).toBe(true);

		const allowed = createStaleWriteHooks({ cwd: tempDir(), allowWriteWithoutRead: true });
		expect((await runCall(tools(), allowed, "write", { path: "existing.txt", content: "replaced\n" })).isError).toBe(
			false,
		);
		expect(await readFile(join(tempDir(), "existing.txt"), "utf8")).toBe("replaced\n");
	});

	it("checks the file the tool really writes when the name differs only invisibly or by a leading @", async () => {
		const real = join(tempDir(), "my\u00a0notes.md");
		await writeFile(real, "precious\n");
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		for (const path of ["my notes.md", "@my\u00a0notes.md"]) {
			const blocked = await runCall(tools(), hooks, "write", { path, content: "clobbered\n" });
			expect(blocked.isError, path).toBe(true);
			expect(textOf(blocked)).toMatch(/have not read it/);
		}
		expect(await readFile(real, "utf8")).toBe("precious\n");
		// Reading it under the plain-space name counts as having seen it.
		expect((await runCall(tools(), hooks, "read", { path: "my notes.md" })).isError).toBe(false);
		expect((await runCall(tools(), hooks, "write", { path: "my notes.md", content: "new\n" })).isError).toBe(false);
		expect(await readFile(real, "utf8")).toBe("new\n");
	});

	it("the record is per workspace and shared by path spelling (relative, absolute, ./x/..)", async () => {
		const file = join(tempDir(), "a.txt");
		await writeFile(file, "x\n");
		const seenFiles = new SeenFiles();
		const first = createStaleWriteHooks({ cwd: tempDir(), seenFiles });
		const second = createStaleWriteHooks({ cwd: tempDir(), seenFiles });
		await runCall(tools(), first, "read", { path: "./sub/../a.txt" });
		expect(seenFiles.size).toBe(1);
		expect((await runCall(tools(), second, "write", { path: file, content: "y\n" })).isError).toBe(false);
		const other = createStaleWriteHooks({ cwd: tempDir() });
		expect((await runCall(tools(), other, "write", { path: file, content: "z\n" })).isError).toBe(true);
	});

	it("a failed read records nothing", async () => {
		const hooks = createStaleWriteHooks({ cwd: tempDir() });
		await runCall(tools(), hooks, "read", { path: "missing.txt" });
		expect(hooks.seenFiles.size).toBe(0);
	});
});
