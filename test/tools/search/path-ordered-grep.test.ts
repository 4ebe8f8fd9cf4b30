import { describe, expect, it } from "vitest";
import type { PathOrderedGrepOptions } from "../../../src/workspace/local/search/path-ordered-grep.js";
import { ripgrepGrep } from "../../../src/workspace/local/search/ripgrep-backend.js";
import { locateRipgrep } from "../../../src/workspace/local/search/ripgrep-path.js";
import type { GrepLine, GrepRequest } from "../../../src/workspace/search/types.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { writeTree } from "./fixtures.js";

async function linesOf(rgPath: string, request: GrepRequest, ordering: PathOrderedGrepOptions): Promise<GrepLine[]> {
	const lines: GrepLine[] = [];
	for await (const batch of await ripgrepGrep(rgPath, request, new AbortController().signal, undefined, ordering))
		lines.push(...batch);
	return lines;
}

/** Names whose path order differs from plain string order ("a/x" before "a-b"), and many files. */
function tree(): Record<string, string> {
	const files: Record<string, string> = {
		"a/x.txt": "hit one\nother\nhit two\n",
		"a-b.txt": "hit\n",
		"a.ts": "before\nhit\nafter\n",
		"B.txt": "hit upper\n",
		"b/c/d.txt": "hit deep\n",
		"é.txt": "hit accent\n",
		"z.txt": "no match here\n",
	};
	for (let index = 0; index < 300; index++) files[`many/f${index}.txt`] = `line\nhit ${index}\nline\n`;
	return files;
}

describe("pathOrderedGrep: the same lines in the same order, whichever ripgrep answers", () => {
	const dir = useTempDir();

	it("gives what ripgrep --sort path gives, from the every-thread search and after a restart", async () => {
		const rgPath = (await locateRipgrep()).path;
		if (!rgPath) throw new Error("the bundled ripgrep is required");
		await writeTree(dir(), tree());
		const request: GrepRequest = {
			root: dir(),
			pattern: "hit",
			literal: true,
			caseSensitive: true,
			context: 1,
			respectIgnoreFiles: true,
			pathOrder: true,
		};
		// An ordered search that is never stopped: ripgrep's own path order.
		const ordered = await linesOf(rgPath, request, { probeMs: 60_000, probeLines: Number.MAX_SAFE_INTEGER });
		expect(ordered.length).toBeGreaterThan(900);
		expect(ordered.slice(0, 4).map((line) => line.path)).toEqual(["B.txt", "a/x.txt", "a/x.txt", "a/x.txt"]);
		// The every-thread search, held and sorted.
		expect(await linesOf(rgPath, request, { probeMs: 0 })).toEqual(ordered);
		// The every-thread search finds more than it may hold: a second ordered search answers.
		expect(await linesOf(rgPath, request, { probeMs: 0, maxHeldLines: 10 })).toEqual(ordered);
		// The every-thread search runs past the time it may take: a second ordered search answers.
		expect(await linesOf(rgPath, request, { probeMs: 0, maxHeldMs: 0 })).toEqual(ordered);
		// The ordered search stopped after its trial (it had given too few lines), then the every-thread one.
		expect(await linesOf(rgPath, request, { probeMs: 1, probeLines: Number.MAX_SAFE_INTEGER })).toEqual(ordered);
		// The defaults.
		expect(await linesOf(rgPath, request, {})).toEqual(ordered);
	});
});
