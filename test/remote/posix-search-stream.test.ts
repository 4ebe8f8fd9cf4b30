import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAllTools, createLocalWorkspace, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { useSshd } from "./sshd-fixture.js";

// The POSIX fallback streams the remote listing (sorted there) through the walker's rules: its
// answers must be the local tools' answers also past the limits, where both stop early in path
// order, and for names whose order is easy to get wrong.

const loopback = useSshd();

function toolsOf(workspace: Workspace) {
	return Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
}

async function answer(workspace: Workspace, tool: string, args: Record<string, unknown>): Promise<string> {
	const result = await runCall(toolsOf(workspace), {}, tool, args);
	expect(result.isError, textOf(result)).toBe(false);
	// The fallback names itself in a notice; the rest must be the same.
	return textOf(result).replace(/\n*\[[^\]]*POSIX find and grep[^\]]*\]/g, "");
}

/**
 * Names that sort differently by bytes and by path (`a-b` < `a/…` < `a.b` in path order), nested
 * ignore files with negations, an ignored folder whose file a negation cannot bring back, a `.git`
 * file (a worktree's pointer), a nested repository's `info/exclude`, a symlink, and 40 folders of
 * 60 files each with a needle in every third: enough to pass grep's and find's limits.
 */
function makeTree(root: string): void {
	const write = (path: string, text: string) => {
		mkdirSync(join(root, path, ".."), { recursive: true });
		writeFileSync(join(root, path), text);
	};
	write(".gitignore", "*.log\nbuild/\n!keep.log\n");
	for (const name of ["a-b", "a.b", "a/b", "a/c/d", "A", "_x", "a b/c", "z:1:odd"])
		write(`${name}.txt`, "needle odd name\n");
	write("src/.ignore", "gen/\n*.tmp\n");
	write("src/gen/skip.txt", "needle generated\n");
	write("src/x.tmp", "needle tmp\n");
	write("src/keep.log", "needle kept log\n");
	write("src/debug.log", "needle debug log\n");
	write("build/.gitignore", "!out.txt\n");
	write("build/out.txt", "needle in ignored build\n");
	write("sub/.git/info/exclude", "private.txt\n");
	write("sub/private.txt", "needle private\n");
	write("sub/public.txt", "needle public\n");
	write("wt/.git", "gitdir: /elsewhere\n");
	write("wt/file.txt", "needle in worktree\n");
	symlinkSync(join(root, "src"), join(root, "link"));
	for (let folder = 0; folder < 40; folder++) {
		for (let file = 0; file < 60; file++) {
			write(`many/d${folder}/f${file}.txt`, file % 3 === 0 ? "line\nneedle here\n" : "line\n");
		}
	}
}

const calls: [string, Record<string, unknown>][] = [
	["grep", { pattern: "needle", literal: true }],
	["grep", { pattern: "needle", literal: true, limit: 7 }],
	["grep", { pattern: "needle", literal: true, path: "many/d3" }],
	["grep", { pattern: "needle", include: "*.log" }],
	["grep", { pattern: "needle", exclude: "many", context: 1 }],
	["find", { pattern: "**/*.txt" }],
	["find", { pattern: "**/*", limit: 25 }],
	["find", { pattern: "*.txt", limit: 500 }],
	["find", { pattern: "many/d1*/*" }],
];

describe("the streamed POSIX fallback answers as the local tools do", () => {
	const dir = useTempDir();

	it("grep and find, under and over their limits, with tricky names and nested ignore rules", async (context) => {
		if (!loopback.sshd) return context.skip();
		makeTree(dir());
		const local = createLocalWorkspace(dir());
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
			ripgrep: "never",
		});
		loopback.opened.push(remote);
		for (const [tool, args] of calls) {
			const expected = await answer(local, tool, args);
			expect(await answer(remote, tool, args), `${tool} ${JSON.stringify(args)}`).toBe(expected);
		}
		// Past the limit both stop early in path order, and say so the same way.
		expect(await answer(remote, "grep", { pattern: "needle", literal: true, limit: 7 })).toMatch(/stopped at/);
		expect(await answer(remote, "find", { pattern: "**/*", limit: 25 })).toMatch(/more match from .* on/);
	}, 120_000);
});
