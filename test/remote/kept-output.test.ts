import { afterEach, describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/engine/types.js";
import {
	createAllTools,
	createLocalWorkspace,
	type ShellToolDetails,
	type Workspace,
	workspaceToolsOptions,
} from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { closeOpened, openOverSsh, useSshd } from "./sshd-fixture.js";

// Remote bash keeps the command's output in a file on the remote side: only the tail, the totals
// (counted there) and the file's path come back. Checked against a real sshd on loopback, and the
// remote file is looked at through the workspace's own bash (i.e. on the remote side).

const loopback = useSshd();
afterEach(() => closeOpened(loopback));

function textOf(result: ToolResult<ShellToolDetails>): string {
	return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

async function bash(
	workspace: Workspace,
	command: string,
	extra: { timeout?: number; onUpdate?: (text: string) => void } = {},
): Promise<{ text: string; details: ShellToolDetails | undefined; failed: boolean }> {
	const tool = createAllTools(workspace.cwd, workspaceToolsOptions(workspace)).bash;
	try {
		const result = (await tool.execute(
			"call",
			{ command, ...(extra.timeout ? { timeout: extra.timeout } : {}) },
			undefined,
			extra.onUpdate
				? (update: { content: { type: string; text?: string }[] }) => extra.onUpdate?.(update.content[0]?.text ?? "")
				: undefined,
		)) as ToolResult<ShellToolDetails>;
		return { text: textOf(result), details: result.details, failed: false };
	} catch (error) {
		const details = (error as { details?: ShellToolDetails }).details;
		return { text: (error as Error).message, details, failed: true };
	}
}

/** Asks the remote side whether `path` exists (and how big it is), through the workspace's bash. */
async function remoteFacts(workspace: Workspace, path: string): Promise<string> {
	return (
		await bash(
			workspace,
			`if [ -e '${path}' ]; then stat -c '%a' '${path}'; wc -l < '${path}'; wc -c < '${path}'; else echo missing; fi`,
		)
	).text;
}

describe("remote bash keeps the full output on the remote side", () => {
	const dir = useTempDir();
	const open = (context: { skip: () => void }): Workspace | undefined => {
		if (!loopback.sshd) {
			context.skip();
			return undefined;
		}
		return openOverSsh(loopback, dir());
	};

	it("200,000 lines: the last lines, the remote totals, and a remote file holding all of it", async (context) => {
		const workspace = open(context);
		if (!workspace) return;
		const updates: string[] = [];
		const run = await bash(workspace, "seq 1 100000; sleep 1.5; seq 100001 200000", {
			onUpdate: (text) => updates.push(text),
		});
		expect(run.failed).toBe(false);
		expect(run.text).toMatch(/\n199999\n200000\n/);
		expect(run.text).not.toMatch(/^1\n2\n/);
		const truncation = run.details?.truncation;
		expect(truncation?.truncated).toBe(true);
		expect(truncation?.originalLines).toBe(200_000);
		let bytes = 0;
		for (let digits = 1, from = 1; from <= 200_000; digits++, from *= 10)
			bytes += (Math.min(200_000, from * 10 - 1) - from + 1) * (digits + 1);
		expect(truncation?.originalBytes).toBe(bytes);
		const path = run.details?.fullOutputPath ?? "";
		expect(path).toMatch(/toolbelt-shell\./);
		expect(run.text).toContain(`Full output: ${path} (on the remote host ssh://`);
		// Progress came from the remote tail while the command slept between its halves.
		expect(updates.some((text) => text.includes("100000"))).toBe(true);
		expect(await remoteFacts(workspace, path)).toBe(`600\n200000\n${bytes}\n`.trimEnd());
	}, 60_000);

	it("a small output leaves no file on the remote side", async (context) => {
		const workspace = open(context);
		if (!workspace) return;
		// The command names its own stdout: the remote output file.
		const run = await bash(workspace, "readlink /proc/self/fd/1; echo done");
		expect(run.failed).toBe(false);
		const [path] = run.text.split("\n");
		expect(path).toMatch(/toolbelt-shell\./);
		expect(run.details?.fullOutputPath).toBeUndefined();
		expect(run.text).not.toMatch(/Full output/);
		expect(await remoteFacts(workspace, path ?? "")).toBe("missing");
	}, 30_000);

	it("commands get the remote shell's own umask back, not the private one of the output files", async (context) => {
		const workspace = open(context);
		if (!workspace) return;
		const first = await bash(workspace, "umask");
		const second = await bash(workspace, 'umask; stat -c %a "$(readlink /proc/$$/fd/1)"');
		expect(first.text).toMatch(/^0[0-7]{3}$/);
		expect(first.text).not.toBe("0077");
		expect(second.text).toBe(`${first.text}\n600`);
	}, 30_000);

	it("a timeout kills the remote tree and leaves neither a file nor a process", async (context) => {
		const workspace = open(context);
		if (!workspace) return;
		const run = await bash(workspace, "readlink /proc/self/fd/1; sh -c 'sleep 300' & echo $!; wait", { timeout: 1 });
		expect(run.failed).toBe(true);
		expect(run.text).toMatch(/timed out/);
		const [path, pid] = run.text.split("\n");
		expect(path).toMatch(/toolbelt-shell\./);
		expect(Number(pid)).toBeGreaterThan(0);
		expect(await remoteFacts(workspace, path ?? "")).toBe("missing");
		const deadline = Date.now() + 5000;
		let alive = "alive";
		while (alive.startsWith("alive") && Date.now() < deadline) {
			alive = (await bash(workspace, `kill -0 ${pid} 2>/dev/null && echo alive || echo gone`)).text;
		}
		expect(alive).toBe("gone");
	}, 30_000);

	// The first frame is a narrow tail: the view must be the one the full window gives locally,
	// whether the last 2000 lines fit in it (short lines), or not (long lines: the bytes bind, and
	// the full window is read again), with colour codes and redraws sanitized away.
	const views: [string, string][] = [
		["short lines", "seq 1 100000"],
		["long lines", "for i in $(seq 1 3000); do printf '%0120d\\n' $i; done"],
		[
			"colour codes and redraws",
			"for i in $(seq 1 4000); do printf '\\033[31m%050d\\033[0m\\r50%%\\r%d\\n' $i $i; done",
		],
		[
			"mostly colour codes",
			"e=$(printf '\\033[1;31m%.0s' $(seq 1 30)); for i in $(seq 1 4000); do printf '%s%d\\n' \"$e\" $i; done",
		],
		["one long line", "head -c 300000 /dev/zero | tr '\\0' x"],
	];
	for (const [name, command] of views) {
		it(`${name}: the same view as locally`, async (context) => {
			const workspace = open(context);
			if (!workspace) return;
			const here = await bash(createLocalWorkspace(dir()), command);
			const there = await bash(workspace, command);
			const withoutPath = (text: string) => text.replace(/Full output: .*$/, "");
			expect(there.failed).toBe(false);
			expect(withoutPath(there.text)).toBe(withoutPath(here.text));
			expect(there.details?.truncation).toEqual(here.details?.truncation);
		}, 30_000);
	}
});
