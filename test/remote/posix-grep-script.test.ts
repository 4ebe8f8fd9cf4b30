import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATCH_DONE_PREFIX, feedLine } from "../../src/workspace/remote/search/grep-feed.js";
import { posixGrepScript } from "../../src/workspace/remote/search/posix-search.js";
import { useTempDir } from "../helpers/temp-dir.js";

// The remote grep script, run by a real sh: with `xargs -0` it batches 1,000 names, without it a
// shell loop batches 400; both print the same matches and report every name done exactly once.

describe("the POSIX grep script", () => {
	const dir = useTempDir();

	function run(names: string[], withoutXargs: boolean): string {
		const bin = join(dir(), "bin");
		mkdirSync(bin, { recursive: true });
		writeFileSync(join(bin, "xargs"), "#!/bin/sh\nexit 1\n");
		chmodSync(join(bin, "xargs"), 0o755);
		const path = withoutXargs ? `${bin}:${process.env.PATH}` : (process.env.PATH ?? "");
		return execFileSync("sh", ["-c", posixGrepScript, "sh", join(dir(), "tree"), "", "-n -F", "needle"], {
			input: names.map((name) => `${feedLine(name)}\n`).join(""),
			env: { PATH: path },
			encoding: "utf8",
			timeout: 60_000,
		});
	}

	it("gives the same lines with xargs and with the shell loop, and counts every name done", () => {
		const names: string[] = [];
		for (let index = 0; index < 2500; index++) {
			const name = `d${index % 7}/f ${index}:x.txt`;
			mkdirSync(join(dir(), "tree", `d${index % 7}`), { recursive: true });
			writeFileSync(join(dir(), "tree", name), index % 500 === 0 ? "a\nneedle\n" : "a\n");
			names.push(name);
		}
		const outputs = [run(names, false), run(names, true)];
		for (const output of outputs) {
			const lines = output.split("\n").filter(Boolean);
			const done = lines.filter((line) => line.startsWith(BATCH_DONE_PREFIX));
			expect(done.reduce((sum, line) => sum + Number(line.slice(BATCH_DONE_PREFIX.length)), 0)).toBe(2500);
			expect(lines.filter((line) => !line.startsWith(BATCH_DONE_PREFIX))).toEqual(
				[0, 500, 1000, 1500, 2000].map((index) => `d${index % 7}/f ${index}:x.txt:2:needle`),
			);
		}
		// 1,000 a batch with xargs, 400 with the loop.
		expect(outputs[0]).toContain(`${BATCH_DONE_PREFIX}1000\n`);
		expect(outputs[1]).toContain(`${BATCH_DONE_PREFIX}400\n`);
	}, 60_000);

	it("searches a name holding a newline by itself, its lines framed by its place in the batch", () => {
		const names = ["a.txt", "two\nlines.txt", "back\\c\nslash.txt"];
		mkdirSync(join(dir(), "tree"), { recursive: true });
		for (const name of names) writeFileSync(join(dir(), "tree", name), "x\nneedle\n");
		for (const withoutXargs of [false, true]) {
			expect(run(names, withoutXargs)).toBe(
				`a.txt:2:needle\n\0F 1\n2:needle\n\0E\n\0F 2\n2:needle\n\0E\n${BATCH_DONE_PREFIX}3\n`,
			);
		}
	}, 60_000);
});
