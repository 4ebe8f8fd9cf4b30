import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/engine/types.js";
import {
	createAllTools,
	createLocalWorkspace,
	type ShellToolDetails,
	type Workspace,
	workspaceToolsOptions,
} from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { inContainer, useTestContainer } from "./docker-fixture.js";
import { useSshd } from "./sshd-fixture.js";

// A cut remote bash output gets the lines worth keeping from its cut part (errors, warnings,
// stack frames, failing tests) that the same output gets locally, byte for byte: the remote side
// picks the candidate lines with grep, the local classifier keeps them. Checked against a real
// sshd on loopback (same disk, so the same command runs both ways) and a busybox container.

const ssh = useSshd();
const dir = useTempDir();

async function bash(workspace: Workspace, command: string): Promise<{ text: string; details?: ShellToolDetails }> {
	const tool = createAllTools(workspace.cwd, workspaceToolsOptions(workspace)).bash;
	try {
		const result = (await tool.execute("call", { command, timeout: 120 }, undefined)) as ToolResult<ShellToolDetails>;
		const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
		return { text, details: result.details };
	} catch (error) {
		return { text: `failed: ${(error as Error).message}` };
	}
}

/**
 * The view without the full-output file's line, which names a path (and the remote host), and
 * without the local notice of background jobs (remote pids are never named: see remote-exec.ts).
 */
const withoutPath = (text: string) =>
	text.replace(/Full output: .*$/m, "").replace(/\n\n\[Still running in the background: [^\]]*\]$/, "");

function openSsh(folder: string): RemoteWorkspace | undefined {
	if (!ssh.sshd) return undefined;
	const workspace = createWorkspaceFromUrl(`${ssh.sshd.urlPrefix}${folder}`, { sshOptions: ssh.sshd.sshOptions });
	ssh.opened.push(workspace);
	return workspace;
}

const plain = (count: number) =>
	`i=0; while [ $i -lt ${count} ]; do i=$((i+1)); echo "plain progress line number $i of the build"; done`;

/** Outputs whose cut part holds lines worth keeping, each run locally and remotely. */
const outputs: [string, string][] = [
	[
		"errors, a stack trace, a failing test and warnings",
		[
			"echo 'src/a.ts(3,5): error TS2322: Type string is not assignable to type number.'",
			"echo 'Traceback (most recent call last):'",
			"echo '  File \"x.py\", line 3, in <module>'",
			"echo 'ValueError: bad value'",
			"echo 'TypeError: x is undefined'",
			"echo '    at run (src/run.ts:10:3)'",
			"echo '    at main (src/main.ts:2:1)'",
			"echo 'FAIL test/a.test.ts > adds'",
			"echo 'warning: unused variable x'",
			"echo 'npm ERR! code ELIFECYCLE'",
			"echo '  ✗ rejects a bad token'",
			plain(5000),
			"echo 'Tests: 1 failed, 41 passed'",
		].join("\n"),
	],
	[
		"more candidates than are examined (the first and the last kept, the middle said)",
		`i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo "warning: step $i is slow"; [ $((i % 700)) = 0 ] && echo "error: step $i broke"; done; ${plain(2500)}`,
	],
	[
		"odd bytes: invalid UTF-8, CR, colour codes, long lines, a character split at the line's first bytes",
		[
			"printf 'bad \\377\\376 error here\\n'",
			"printf 'crlf error line\\r\\n'",
			"printf '\\033[31merror: coloured\\033[0m\\n'",
			"printf '%01300d error beyond the first bytes\\n' 0",
			"printf 'error at the start %01300d\\n' 0",
			"printf '%01199d\\342\\234\\227 error split\\n' 0",
			"printf 'error: no end yet'; printf ' and the end\\n'",
			plain(3000),
		].join("\n"),
	],
	[
		"a 20 MB line with a keyword at its start (past 16 MB the needle check reads the lines' starts only)",
		`printf 'error: a very long line '; head -c 20000000 /dev/zero | tr '\\0' x; echo; ${plain(3000)}`,
	],
	["a background job still holding the output", `echo 'error: early'; ${plain(3000)}; (sleep 2; echo 'error: late') &`],
];

describe("a cut remote bash output keeps the same lines as locally", () => {
	for (const [name, command] of outputs) {
		it(name, async (context) => {
			const workspace = openSsh(dir());
			if (!workspace) return context.skip();
			const here = await bash(createLocalWorkspace(dir()), command);
			const there = await bash(workspace, command);
			expect(here.text).toMatch(/^\[Kept from the cut part of the output/);
			expect(withoutPath(there.text)).toBe(withoutPath(here.text));
			expect(there.details?.truncation).toEqual(here.details?.truncation);
		}, 60_000);
	}

	it("a command long enough to arrive on stdin (a remote shell of its own)", async (context) => {
		const workspace = openSsh(dir());
		if (!workspace) return context.skip();
		const command = `# ${"padding ".repeat(20_000)}\n${outputs[0]?.[1]}`;
		const here = await bash(createLocalWorkspace(dir()), command);
		const there = await bash(workspace, command);
		expect(here.text).toContain("error TS2322");
		expect(withoutPath(there.text)).toBe(withoutPath(here.text));
	}, 60_000);

	it("a NUL byte in a kept line (GNU grep reads it as text)", async (context) => {
		const workspace = openSsh(dir());
		if (!workspace) return context.skip();
		const command = `printf 'nul \\000 error inside\\n'; ${plain(3000)}`;
		const here = await bash(createLocalWorkspace(dir()), command);
		const there = await bash(workspace, command);
		expect(here.text).toContain("error inside");
		expect(withoutPath(there.text)).toBe(withoutPath(here.text));
	}, 60_000);

	it("50 MB with 100,000 error lines: the same view, with memory far below the output's size", async (context) => {
		const workspace = openSsh(dir());
		if (!workspace) return context.skip();
		const command =
			'awk \'BEGIN { for (i = 1; i <= 1000000; i++) if (i % 10 == 0) print "error: step " i " failed in module m" i; else print "compiling module " i " of the build, nothing to see" }\'';
		const here = await bash(createLocalWorkspace(dir()), command);
		const before = process.memoryUsage();
		const there = await bash(workspace, command);
		const after = process.memoryUsage();
		expect(there.details?.truncation?.originalBytes).toBeGreaterThan(45 * 2 ** 20);
		expect(here.text).toMatch(/more lines between the first and the last were not examined/);
		expect(withoutPath(there.text)).toBe(withoutPath(here.text));
		// At most 2,000 clipped lines cross the connection, never the cut part itself.
		expect(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers).toBeLessThan(24 * 2 ** 20);
	}, 120_000);

	it("a huge output is scanned at its two ends only, as locally", async (context) => {
		const workspace = openSsh(dir());
		if (!workspace) return context.skip();
		const filler = "yes 'compiling module, nothing to see here' | head -c 60000000";
		const command = `echo 'error: first'; ${filler}; echo 'error: in the middle'; ${filler}; echo 'error: last'; ${plain(2500)}`;
		const here = await bash(createLocalWorkspace(dir()), command);
		const there = await bash(workspace, command);
		expect(here.text).toMatch(/the middle \d+ MB was not scanned/);
		expect(here.text).not.toContain("error: in the middle");
		expect(withoutPath(there.text)).toBe(withoutPath(here.text));
	}, 120_000);
});

describe("in a busybox container (docker backend)", () => {
	const container = useTestContainer("toolbelt-kept", "the docker kept-lines tests", (name) =>
		inContainer(name, "mkdir -p /srv/kept"),
	);

	// BusyBox grep has no -a (it takes NUL bytes as they are) and its awk ends a line's text at a
	// NUL byte: only NUL-free outputs are compared here.
	for (const [name, command] of outputs.slice(0, 3)) {
		it(`${name}: busybox grep, cut and awk pick the same lines`, async (context) => {
			if (container.skipReason) return context.skip();
			const workspace = createWorkspaceFromUrl(`docker://${container.name}/srv/kept`);
			container.opened.push(workspace);
			const here = await bash(createLocalWorkspace(dir()), command);
			const there = await bash(workspace, command);
			expect(withoutPath(there.text)).toBe(withoutPath(here.text));
		}, 90_000);
	}
});
