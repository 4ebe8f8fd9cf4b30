import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAllTools, type Workspace, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { useSshd } from "./sshd-fixture.js";

// grep without ripgrep on the remote side: a line of hundreds of MB must not cross the wire whole.
// The remote side cuts each of grep's lines at 1 MiB (as the local search holds at most 1 MiB of a
// line); here the cut line is shown as a window around the match, marked. Real sshd, ripgrep never.

const loopback = useSshd();
const MB = 1024 * 1024;

function toolsOf(workspace: Workspace) {
	return Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
}

/** One line of `bytes`: a needle near its start, then blanks, then a second needle at its end. */
async function writeLongLine(path: string, bytes: number): Promise<void> {
	const out = createWriteStream(path);
	out.write("start needle here ");
	const block = Buffer.alloc(MB, "x");
	for (let written = 0; written < bytes; written += block.length) {
		if (!out.write(block)) await once(out, "drain");
	}
	out.end(" needle at the end\nshort needle line\n");
	await once(out, "finish");
}

describe("grep without ripgrep, over ssh, on a 300 MB single line", () => {
	const dir = useTempDir();

	it("cuts the line on the remote side and marks it; the next line is whole", async (context) => {
		if (!loopback.sshd) return context.skip();
		await writeLongLine(join(dir(), "huge.txt"), 300 * MB);
		const remote = createWorkspaceFromUrl(`${loopback.sshd.urlPrefix}${dir()}`, {
			sshOptions: loopback.sshd.sshOptions,
			ripgrep: "never",
		});
		loopback.opened.push(remote);
		const before = process.memoryUsage().rss;
		const result = await runCall(toolsOf(remote), {}, "grep", { pattern: "needle" });
		const text = textOf(result);
		expect(result.isError, text).toBe(false);
		expect(text).toMatch(/huge\.txt:1: start needle here x+ \[… the rest of this line left out: it is over 1 MiB\]/);
		expect(text).toContain("huge.txt:2: short needle line");
		// Before, the whole 300 MB line came over ssh into one string here (its size in memory, twice).
		expect(process.memoryUsage().rss - before).toBeLessThan(150 * MB);
	}, 300_000);
});
