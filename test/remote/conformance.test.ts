import {
	chmodSync,
	existsSync,
	linkSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createAllTools, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { noSettings } from "../helpers/no-settings.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { closeOpened, useBackends } from "./backends.js";

// One suite, two backends: the tool cases that are about behaviour run against a local folder
// and against the same folder reached through a real sshd on loopback.

const { backends } = useBackends();
afterEach(closeOpened);

function toolsFor(workspace: Workspace) {
	return Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
}

for (const backend of backends) {
	describe(`tools over the ${backend.name} backend`, () => {
		const dir = useTempDir();
		const setup = async () => {
			const reason = backend.skipReason();
			if (reason) return undefined;
			const workspace = backend.open(dir());
			const tools = toolsFor(workspace);
			const safety = await createSafetyLayer({
				cwd: dir(),
				homeDir: dir(),
				mode: "yolo",
				workspace,
				settings: noSettings,
			});
			return { tools, hooks: safety.hooks };
		};

		it("read pages by line with the same notices and continuation offsets", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			writeFileSync(join(dir(), "lines.txt"), Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n"));
			const first = textOf(await runCall(run.tools, run.hooks, "read", { path: "lines.txt", limit: 3 }));
			expect(first).toMatch(/line 1\n.*line 2\n.*line 3/);
			expect(first).toMatch(/offset=4/);
			const deep = textOf(await runCall(run.tools, run.hooks, "read", { path: "lines.txt", offset: 4990, limit: 5 }));
			expect(deep).toMatch(/^\s+4990\tline 4990/);
			expect(deep).toMatch(/4994\tline 4994/);
			const end = textOf(await runCall(run.tools, run.hooks, "read", { path: "lines.txt", offset: 4999 }));
			expect(end).toMatch(/5000\tline 5000/);
			const beyond = await runCall(run.tools, run.hooks, "read", { path: "lines.txt", offset: 6000 });
			expect(beyond.isError).toBe(true);
			expect(textOf(beyond)).toMatch(/5000 lines/);
		});

		it("read detects binary files and reports missing ones", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			writeFileSync(join(dir(), "blob.bin"), Buffer.from([0, 1, 2, 3, 0, 255, 0]));
			expect(textOf(await runCall(run.tools, run.hooks, "read", { path: "blob.bin" }))).toMatch(/binary file/);
			const missing = await runCall(run.tools, run.hooks, "read", { path: "nope.txt" });
			expect(missing.isError).toBe(true);
			expect(textOf(missing)).toMatch(/not found|does not exist|No such/i);
		});

		it("write and edit are atomic, keep the mode and keep symlinks", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			writeFileSync(join(dir(), "script.sh"), "echo old\n");
			chmodSync(join(dir(), "script.sh"), 0o751);
			symlinkSync("script.sh", join(dir(), "link.sh"));
			await runCall(run.tools, run.hooks, "read", { path: "link.sh" });
			const edited = await runCall(run.tools, run.hooks, "edit", {
				path: "link.sh",
				old_string: "old",
				new_string: "new",
			});
			expect(edited.isError, textOf(edited)).toBe(false);
			expect(readFileSync(join(dir(), "script.sh"), "utf8")).toBe("echo new\n");
			expect(lstatSync(join(dir(), "link.sh")).isSymbolicLink()).toBe(true);
			expect(statSync(join(dir(), "script.sh")).mode & 0o777).toBe(0o751);
			const created = await runCall(run.tools, run.hooks, "write", { path: "deep/new/file.txt", content: "hi\n" });
			expect(created.isError, textOf(created)).toBe(false);
			expect(readFileSync(join(dir(), "deep/new/file.txt"), "utf8")).toBe("hi\n");
			// A file with two names is replaced under confinement (its other name may be outside): the other name keeps its content.
			writeFileSync(join(dir(), "one.txt"), "shared old\n");
			linkSync(join(dir(), "one.txt"), join(dir(), "two.txt"));
			await runCall(run.tools, run.hooks, "read", { path: "one.txt" });
			const shared = await runCall(run.tools, run.hooks, "edit", {
				path: "one.txt",
				old_string: "old",
				new_string: "new",
			});
			expect(shared.isError, textOf(shared)).toBe(false);
			expect(readFileSync(join(dir(), "one.txt"), "utf8")).toBe("shared new\n");
			expect(readFileSync(join(dir(), "two.txt"), "utf8")).toBe("shared old\n");
			expect(textOf(shared)).toMatch(/2 hard links/);
		});

		it("stale-write protection and confinement judge the workspace's disk", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			writeFileSync(join(dir(), "notes.txt"), "hello\n");
			expect(textOf(await runCall(run.tools, run.hooks, "write", { path: "notes.txt", content: "x\n" }))).toMatch(
				/have not read it/,
			);
			await runCall(run.tools, run.hooks, "read", { path: "notes.txt" });
			writeFileSync(join(dir(), "notes.txt"), "changed outside\n");
			expect(textOf(await runCall(run.tools, run.hooks, "write", { path: "notes.txt", content: "x\n" }))).toMatch(
				/changed on disk/,
			);
			expect(textOf(await runCall(run.tools, run.hooks, "read", { path: "/etc/hostname" }))).toMatch(
				/outside the workspace/,
			);
			symlinkSync("/etc", join(dir(), "escape"));
			expect(textOf(await runCall(run.tools, run.hooks, "read", { path: "escape/hostname" }))).toMatch(
				/outside the workspace/,
			);
			expect(textOf(await runCall(run.tools, run.hooks, "write", { path: ".env", content: "x" }))).toMatch(
				/protected path/,
			);
		});

		it("ls lists entries with folders marked", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			writeFileSync(join(dir(), "a.txt"), "a");
			writeFileSync(join(dir(), ".hidden"), "h");
			symlinkSync("a.txt", join(dir(), "b.txt"));
			await runCall(run.tools, run.hooks, "write", { path: "sub/c.txt", content: "c" });
			const listing = textOf(await runCall(run.tools, run.hooks, "ls", {}));
			expect(listing).toContain("a.txt");
			expect(listing).toContain(".hidden");
			expect(listing).toContain("b.txt");
			expect(listing).toMatch(/sub\//);
		});

		it("grep and find give the same results, ignore rules included", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			mkdirSync(join(dir(), "src/deep"), { recursive: true });
			mkdirSync(join(dir(), "build"));
			writeFileSync(join(dir(), ".gitignore"), "build/\n");
			writeFileSync(join(dir(), "src/a.ts"), "const needle = 1;\nother\n");
			writeFileSync(join(dir(), "src/deep/b.ts"), "x\nneedle again\n");
			writeFileSync(join(dir(), "build/out.ts"), "needle in build\n");
			const grep = await runCall(run.tools, run.hooks, "grep", { pattern: "needle", literal: true });
			expect(grep.isError, textOf(grep)).toBe(false);
			expect(textOf(grep)).toMatch(/src\/a\.ts:1:.*needle/);
			expect(textOf(grep)).toMatch(/src\/deep\/b\.ts:2: needle again/);
			expect(textOf(grep)).not.toContain("build/out.ts");
			const find = await runCall(run.tools, run.hooks, "find", { pattern: "**/*.ts" });
			expect(find.isError, textOf(find)).toBe(false);
			expect(textOf(find)).toContain("src/a.ts");
			expect(textOf(find)).toContain("src/deep/b.ts");
			expect(textOf(find)).not.toContain("build/out.ts");
		});

		it("bash runs in the folder, reports exit codes and keeps the tail of long output", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			const pwd = await runCall(run.tools, run.hooks, "bash", {
				command: "pwd; echo out; echo err >&2; read x; echo stdin=$?",
			});
			expect(textOf(pwd)).toContain(dir());
			expect(textOf(pwd)).toMatch(/out\n(.|\n)*err/);
			expect(textOf(pwd)).toContain("stdin=1");
			const failed = await runCall(run.tools, run.hooks, "bash", { command: "exit 3" });
			expect(failed.isError).toBe(true);
			expect(textOf(failed)).toMatch(/code 3/);
			const long = textOf(await runCall(run.tools, run.hooks, "bash", { command: "seq 1 100000" }));
			expect(long).toContain("100000");
			expect(long).not.toMatch(/^1\n2\n/);
			expect(long).toMatch(/Full output/);
		});

		it("a bash timeout kills the whole process tree", async (context) => {
			const run = await setup();
			if (!run) return context.skip();
			const pidFile = join(dir(), "child.pid");
			const result = await runCall(run.tools, run.hooks, "bash", {
				command: `sh -c 'sleep 300' & echo $! > ${pidFile}; wait`,
				timeout: 1,
			});
			expect(textOf(result)).toMatch(/timed out|timeout/i);
			const pid = Number(readFileSync(pidFile, "utf8"));
			const deadline = Date.now() + 5000;
			let alive = true;
			while (alive && Date.now() < deadline) {
				try {
					process.kill(pid, 0);
					await new Promise((resolve) => setTimeout(resolve, 50));
				} catch {
					alive = false;
				}
			}
			expect(alive).toBe(false);
			expect(existsSync(pidFile)).toBe(true);
		});
	});
}
