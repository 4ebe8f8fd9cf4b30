import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAllTools, createLocalWorkspace, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { dockerUnavailable, ensureTestImage, inContainer, removeContainer, startContainer } from "./docker-fixture.js";
import { useSshd } from "./sshd-fixture.js";

// grep and find without ripgrep: POSIX find and grep on the remote side, with the ignore rules of
// the local walker. Against a real sshd (GNU find and grep; ripgrep never used) and a busybox
// container (busybox find and grep; no ripgrep there, and none copied).

const loopback = useSshd();

function toolsOf(workspace: Workspace) {
	return Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
}

/** A tree with nested ignore files, a negation, hidden files, a .git folder and a binary file. */
function makeTree(root: string): void {
	for (const folder of ["src/deep", "build", ".hidden", ".git/info", "logs", "docs"]) {
		mkdirSync(join(root, folder), { recursive: true });
	}
	writeFileSync(join(root, ".gitignore"), "build/\n*.log\n!keep.log\n");
	writeFileSync(join(root, "src/.ignore"), "generated.ts\n");
	writeFileSync(join(root, ".git/info/exclude"), "docs/private.md\n");
	writeFileSync(join(root, ".git/config"), "needle in git config\n");
	writeFileSync(join(root, "src/a.ts"), "const needle = 1;\nother line\nNEEDLE upper 42\n");
	writeFileSync(join(root, "src/deep/b.ts"), "x\nneedle again: 7 items\ny\n");
	writeFileSync(join(root, "src/generated.ts"), "needle generated\n");
	writeFileSync(join(root, "build/out.ts"), "needle in build\n");
	writeFileSync(join(root, "logs/debug.log"), "needle logged\n");
	writeFileSync(join(root, "logs/keep.log"), "needle kept\n");
	writeFileSync(join(root, ".hidden/secret.txt"), "hidden needle\n");
	writeFileSync(join(root, "docs/private.md"), "needle private\n");
	writeFileSync(join(root, "docs/a:1:odd.md"), "needle with a colon name\n");
	writeFileSync(join(root, "data.bin"), Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(64), Buffer.from("x\n")]));
}

/** Names holding a newline (one also a backslash and `\\c`, which `printf %b` would stop at), in a folder too. */
const newlineNames = ["two\nlines.txt", "back\\c\nslash.txt", "dir\nname/inner.txt"];

function newlineTree(root: string): void {
	mkdirSync(join(root, "dir\nname"), { recursive: true });
	for (const name of newlineNames) writeFileSync(join(root, name), "a\nneedle here\n");
	writeFileSync(join(root, "plain.txt"), "needle too\n");
}

/** grep (with context) and find give each name once, escaped as the tools show it, never split. */
async function expectNewlineNamesWhole(remote: Workspace): Promise<void> {
	// As visibleName shows them: the backslash doubled, so it never reads as an escape.
	const shown = newlineNames.map((name) => name.replaceAll("\\", "\\\\").replaceAll("\n", "\\n"));
	const grep = await answer(remote, "grep", { pattern: "needle", context: 1 });
	for (const name of shown) {
		expect(grep).toContain(`${name}-1- a\n${name}:2: needle here`);
	}
	expect(grep).toContain("plain.txt:1: needle too");
	expect(grep).not.toMatch(/^(lines|slash|name)/m);
	const find = await answer(remote, "find", { pattern: "**/*.txt" });
	expect(
		find
			.split("\n")
			.filter((line) => line.endsWith(".txt"))
			.sort(),
	).toEqual([...shown, "plain.txt"].sort());
	const one = await answer(remote, "grep", { pattern: "needle", path: "two\nlines.txt" });
	expect(one).toMatch(/needle here/);
	const result = await runCall(toolsOf(remote), {}, "grep", { pattern: "needle" });
	expect(result.details).toMatchObject({ backend: "walker" });
}

const cases: Record<string, unknown>[] = [
	{ pattern: "needle", literal: true },
	{ pattern: "needle\\s+again:\\s\\d+", path: "src" },
	{ pattern: "needle", case_sensitive: false, path: "src/a.ts" },
	{ pattern: "(?:again|upper)", context: 1 },
	{ pattern: "needle", include: "*.ts" },
	{ pattern: "needle", exclude: "src/deep" },
];

/** The text a grep or find call gives, without the backend notice (the fallback names itself). */
async function answer(workspace: Workspace, tool: string, args: Record<string, unknown>): Promise<string> {
	const result = await runCall(toolsOf(workspace), {}, tool, args);
	expect(result.isError, textOf(result)).toBe(false);
	return textOf(result);
}

describe("grep and find without ripgrep, over ssh", () => {
	const dir = useTempDir();

	it("give what the local tools give: ignore rules, hidden files, .git, context, globs", async (context) => {
		if (!loopback.sshd) return context.skip();
		makeTree(dir());
		const local = createLocalWorkspace(dir());
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
			ripgrep: "never",
		});
		loopback.opened.push(remote);
		for (const args of cases) {
			expect(await answer(remote, "grep", args), JSON.stringify(args)).toBe(await answer(local, "grep", args));
		}
		for (const pattern of ["**/*.ts", "*.log", "**/*"]) {
			expect(await answer(remote, "find", { pattern }), pattern).toBe(await answer(local, "find", { pattern }));
		}
		const result = await runCall(toolsOf(remote), {}, "grep", { pattern: "needle", literal: true });
		expect(result.details).toMatchObject({
			backend: "walker",
			fallbackReason: expect.stringMatching(/POSIX find and grep/),
		});
	}, 60_000);

	it("give a file name holding a newline as one result, whole, with its lines", async (context) => {
		if (!loopback.sshd) return context.skip();
		newlineTree(dir());
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
			ripgrep: "never",
		});
		loopback.opened.push(remote);
		await expectNewlineNamesWhole(remote);
	}, 60_000);

	it("say clearly what POSIX grep cannot do", async (context) => {
		if (!loopback.sshd) return context.skip();
		makeTree(dir());
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
			ripgrep: "never",
		});
		loopback.opened.push(remote);
		const result = await runCall(toolsOf(remote), {}, "grep", { pattern: "needle(?= again)" });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/no look-around.*install ripgrep there/);
	}, 30_000);
});

describe("grep and find without ripgrep, in a busybox container", () => {
	const container = `toolbelt-posix-${process.pid}`;
	let skip = dockerUnavailable();
	beforeAll(() => {
		if (skip) return void console.warn(`skipping the busybox POSIX search test: ${skip}`);
		try {
			ensureTestImage();
			startContainer(container);
		} catch (error) {
			skip = `the test container could not start: ${(error as Error).message}`;
		}
	}, 120_000);
	afterAll(() => removeContainer(container));

	it("find and grep with busybox, the bundled ripgrep not copied", async (context) => {
		if (skip) return context.skip();
		inContainer(container, "mkdir -p /srv/tree/src /srv/tree/build");
		inContainer(
			container,
			"cd /srv/tree && printf 'build/\\n' > .gitignore && printf 'needle 1\\n' > src/a.ts && printf 'needle 2\\n' > build/b.ts && printf 'x\\nneedle 3\\n' > .env",
		);
		const remote = createWorkspaceFromUrl(`docker://${container}/srv/tree`, { ripgrep: "installed" });
		loopback.opened.push(remote);
		const grep = await answer(remote, "grep", { pattern: "needle \\d", context: 1 });
		expect(grep).toMatch(/\.env-1- x\n\.env:2: needle 3/);
		expect(grep).toMatch(/src\/a\.ts:1: needle 1/);
		expect(grep).not.toContain("build/b.ts");
		const find = await answer(remote, "find", { pattern: "**/*" });
		expect(find.split("\n").slice(0, 3).sort()).toEqual([".env", ".gitignore", "src/a.ts"]);
		expect(inContainer(container, "ls -a $HOME/.cache 2>/dev/null || true")).not.toContain("toolbelt");
	}, 60_000);

	it("give a file name holding a newline as one result with busybox find, sort and grep", async (context) => {
		if (skip) return context.skip();
		const script = newlineNames.map((name) => `printf 'a\\nneedle here\\n' > '${name}'`).join(" && ");
		inContainer(
			container,
			`mkdir -p '/srv/nl/dir\nname' && cd /srv/nl && ${script} && printf 'needle too\\n' > plain.txt`,
		);
		const remote = createWorkspaceFromUrl(`docker://${container}/srv/nl`, { ripgrep: "installed" });
		loopback.opened.push(remote);
		await expectNewlineNamesWhole(remote);
	}, 60_000);
});
