import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OmittedLines } from "../../../src/workspace/local/search/long-lines/omitted-lines.js";
import { grepArgs, parseGrepLine, ripgrepGrep } from "../../../src/workspace/local/search/ripgrep-backend.js";
import type { GrepRequest } from "../../../src/workspace/search/types.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { makeFifo } from "./fixtures.js";
import { bundledRipgrep, collectLines } from "./ripgrep-fixtures.js";

const MB = 1024 * 1024;

/** A search of the one file `file` in `root`, as the grep tool asks for it. */
function fileRequest(root: string, file: string, pattern: string, context = 0): GrepRequest {
	return { root, file, pattern, literal: false, caseSensitive: true, context, respectIgnoreFiles: true };
}

/** The same search with every line piped whole: started through a launcher, which is never given `--max-columns`. */
async function pipedWhole(rgPath: string, request: GrepRequest) {
	const launch = async (binary: string, args: string[], cwd: string) =>
		spawn(binary, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
	return collectLines(await ripgrepGrep(rgPath, request, new AbortController().signal, launch));
}

const FILES: Record<string, string | Buffer> = {
	"middle.txt": `short needle\n${"x".repeat(2 * MB)}needle${"y".repeat(MB)}\nlast needle\n`,
	"crlf.txt": Buffer.from(`a needle\r\n${"c".repeat(MB + 5)}needle tail\r\n${"q".repeat(MB)}\r\nend needle\r\n`),
	"context.txt": `${"b".repeat(MB + 1)}\nneedle\n${"a".repeat(MB + 3)}\n`,
	"no-end.txt": `needle${"z".repeat(2 * MB)}`,
	"near-limit.txt": `needle${"e".repeat(MB - 12)}\nneedle${"f".repeat(MB - 7)}\nneedle${"g".repeat(MB - 6)}\n`,
	"multibyte.txt": `${"é".repeat(600_000)}needle${"ü".repeat(600_000)}\n`,
	"marker-text.txt": "[Omitted long line with 1 matches] needle\nneedle\n[Omitted long context line]\n",
	"byte-order-mark.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${"h".repeat(2 * MB)}needle\n`)]),
};

describe("long lines of a searched file read back from the file", () => {
	const dir = useTempDir();

	it("gives the same lines as a search that pipes every line whole", async () => {
		const rgPath = await bundledRipgrep();
		for (const [name, content] of Object.entries(FILES)) await writeFile(join(dir(), name), content);
		for (const name of Object.keys(FILES)) {
			for (const context of [0, 1]) {
				const request = fileRequest(dir(), name, "needle|Omitted", context);
				const read = await collectLines(await ripgrepGrep(rgPath, request, new AbortController().signal));
				expect({ name, context, lines: read }).toEqual({ name, context, lines: await pipedWhole(rgPath, request) });
				expect(read.length).toBeGreaterThan(0);
				// Never a line held whole: the cut keeps a window of about 400 bytes.
				for (const line of read) expect(line.text.length).toBeLessThan(MB);
			}
		}
		const middle = await collectLines(
			await ripgrepGrep(rgPath, fileRequest(dir(), "middle.txt", "needle"), new AbortController().signal),
		);
		expect(middle[1]?.text).toMatch(
			/^\[… 2096952 bytes of this line left out\] x{200}needley{194} \[… 1048382 bytes of this line left out\]$/,
		);
	}, 60_000);

	it("asks ripgrep for markers only for a regular file without a byte order mark", async () => {
		await writeFile(join(dir(), "plain.txt"), "needle\n");
		await writeFile(join(dir(), "marked.txt"), Buffer.from([0xff, 0xfe, 0x6e, 0x00]));
		makeFifo(join(dir(), "fifo"));
		expect(OmittedLines.forFile(join(dir(), "plain.txt"), MB)).toBeInstanceOf(OmittedLines);
		expect(OmittedLines.forFile(join(dir(), "marked.txt"), MB)).toBeUndefined();
		expect(OmittedLines.forFile(join(dir(), "fifo"), MB)).toBeUndefined();
		expect(OmittedLines.forFile(join(dir(), "missing.txt"), MB)).toBeUndefined();
		const args = grepArgs(fileRequest(dir(), "plain.txt", "needle"), [], MB);
		expect(args).toEqual(expect.arrayContaining(["--byte-offset", "--max-columns", String(MB)]));
	});

	it("keeps a marker as ripgrep printed it where the file has no long line there", async () => {
		await writeFile(join(dir(), "changed.txt"), "needle\nshort line\n");
		const lines = OmittedLines.forFile(join(dir(), "changed.txt"), MB) as OmittedLines;
		const signal = new AbortController().signal;
		// The file's line at offset 7 is short (it was rewritten after ripgrep read it), or the offset is no line's start.
		const marker = Buffer.from("changed.txt\u00002:1:7:[Omitted long line with 1 matches]");
		expect(await lines.restore(marker, signal)).toBeUndefined();
		expect(await lines.restore(Buffer.from("changed.txt\u00002:1:5:[Omitted long line with 1 matches]"), signal)).toBe(
			undefined,
		);
		expect(parseGrepLine(marker, true)).toMatchObject({ lineNumber: 2, text: "[Omitted long line with 1 matches]" });
	});
});
