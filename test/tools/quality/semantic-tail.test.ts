import { describe, expect, it } from "vitest";
import { createBashTool } from "../../../src/tools/bash.js";
import { LINE_BYTES, PREFILTER_NEEDLES } from "../../../src/workspace/output/candidate-lines.js";
import {
	collapseRepeats,
	EXAMINED_FIRST,
	EXAMINED_LAST,
	ImportantLines,
	keptBlock,
	wordyShapeOf,
} from "../../../src/workspace/output/semantic-tail.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

describe("semantic truncation of bash output", () => {
	it("keeps errors, stack frames, failing tests and summaries from the cut part", async () => {
		const script = [
			"echo 'src/a.ts(3,5): error TS2322: Type string is not assignable to type number.'",
			"echo 'Traceback (most recent call last):'",
			"echo '    at run (src/run.ts:10:3)'",
			"echo 'FAIL test/a.test.ts > adds'",
			'for i in $(seq 1 5000); do echo "plain progress line number $i of the build"; done',
			"echo 'Tests: 1 failed, 41 passed'",
		].join("\n");
		const result = await createBashTool(temp()).execute("1", { command: script }, undefined);
		const text = resultText(result);
		expect(text).toMatch(/^\[Kept from the cut part of the output: error, warning/);
		expect(text).toContain("error TS2322: Type string is not assignable");
		expect(text).toContain("Traceback (most recent call last):");
		expect(text).toContain("    at run (src/run.ts:10:3)");
		expect(text).toContain("FAIL test/a.test.ts > adds");
		expect(text).toContain("the rest is in the full-output file named below");
		// The near-identical progress lines of the tail collapse into one with a count.
		expect(text).toMatch(
			/\n\[… \d+ near-identical lines \(differing only in numbers\) collapsed\]\nplain progress line number 5000 of the build\n/,
		);
		expect(text).toContain("Tests: 1 failed, 41 passed");
	});

	it("does not collapse a column of numbers, which is content", () => {
		expect(collapseRepeats("1\n2\n3\n4\n5").text).toBe("1\n2\n3\n4\n5");
		expect(collapseRepeats("retry 1 failed\nretry 2 failed\nretry 3 failed\nretry 4 failed\ndone").text).toBe(
			"retry 1 failed\n[… 2 near-identical lines (differing only in numbers) collapsed]\nretry 4 failed\ndone",
		);
	});
});

describe("ImportantLines", () => {
	it("keeps the first line of a chunk that ends inside a line", () => {
		const important = new ImportantLines();
		important.scan(Buffer.from("src/a.ts(3,5): error TS2322: early failure\nplain line\nthe start of a long li"));
		important.scan(Buffer.from("ne that goes on\nTests: 1 failed, 41 passed\n"));
		expect(important.keptOutside("").map((line) => line.text)).toEqual([
			"src/a.ts(3,5): error TS2322: early failure",
			"Tests: 1 failed, 41 passed",
		]);
	});

	it("counts only what the tail does not show", () => {
		const important = new ImportantLines();
		important.scan(Buffer.from("error: one\nerror: two\nTests: 1 failed\n"));
		const block = keptBlock(important.keptOutside("Tests: 1 failed"), important.seenOutside("Tests: 1 failed"), "f");
		expect(block).toMatch(
			/^\[Kept from the cut part of the output: error, warning, stack-trace, failing-test and summary lines; the rest is in f\]\nerror: one/,
		);
	});
});

describe("ImportantLines keeps what the lines alone decide", () => {
	const keptOf = (bytes: Buffer, chunk: number) => {
		const important = new ImportantLines();
		for (let at = 0; at < bytes.length; at += chunk) important.scan(bytes.subarray(at, at + chunk));
		return { kept: important.keptOutside("").map((line) => line.text), seen: important.seenOutside(""), important };
	};

	it("the same lines however the output arrives in chunks (a remote grep picks them line by line)", () => {
		const lines = Array.from({ length: 4000 }, (_, index) =>
			index % 7 === 0
				? `error: step ${index} failed \u001b[31mred\u001b[0m\r`
				: index % 11 === 0
					? `${"x".repeat(1500)} error past the first bytes`
					: index % 13 === 0
						? `   at run (src/run.ts:${index}:3) ✗`
						: `plain ${index} mirror detail`,
		);
		const bytes = Buffer.from(`${lines.join("\n")}\nerror: the last line has no newline`);
		const whole = keptOf(bytes, bytes.length);
		expect(whole.kept).toContain("error: the last line has no newline");
		expect(whole.kept.some((line) => line.includes("past the first bytes"))).toBe(false);
		for (const chunk of [1, 7, 1199, 1200, 1201, 65_536]) {
			const other = keptOf(bytes, chunk);
			expect(other.kept).toEqual(whole.kept);
			expect(other.seen).toBe(whole.seen);
			expect(other.important.unexamined).toBe(whole.important.unexamined);
		}
	});

	it("a flood of warnings: the first and the last are examined, the middle only said", () => {
		const bytes = Buffer.from(
			`${Array.from({ length: 200_000 }, (_, index) => `warning: thing ${index} is slow`).join("\n")}\nTests: 1 failed\n`,
		);
		const { kept, important } = keptOf(bytes, 1024 * 1024);
		expect(important.unexamined).toBe(true);
		expect(kept[0]).toBe("warning: thing 0 is slow");
		expect(kept.at(-1)).toBe("Tests: 1 failed");
		expect(important.seen).toBe(2000);
	});
});

describe("ImportantLines finds exactly the candidates its definition names", () => {
	/** The definition, line by line: what a remote grep of the same lines feeds in. */
	function byDefinition(bytes: Buffer): ImportantLines {
		const important = new ImportantLines();
		const needles = PREFILTER_NEEDLES.map((needle) => Buffer.from(needle));
		const candidates: string[] = [];
		for (let start = 0; start < bytes.length; ) {
			const newline = bytes.indexOf(10, start);
			const end = newline === -1 ? bytes.length : newline;
			const head = bytes.subarray(start, Math.min(end, start + LINE_BYTES));
			if (needles.some((needle) => head.includes(needle))) candidates.push(head.toString("utf8"));
			start = end + 1;
		}
		const last = Math.max(candidates.length - EXAMINED_LAST, EXAMINED_FIRST);
		for (const line of candidates.slice(0, EXAMINED_FIRST)) important.takeCandidate(line);
		if (candidates.length > EXAMINED_FIRST + EXAMINED_LAST) important.markUnexamined();
		for (const line of candidates.slice(last)) important.takeCandidate(line);
		important.end();
		return important;
	}

	it("on random outputs of sparse, dense and long lines, in random chunks", () => {
		let seed = 7;
		const random = (below: number) => {
			seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
			return seed % below;
		};
		const kinds = [
			() => `plain line ${random(1000)}`,
			() => `warning: deprecated call ${random(50)}`,
			() => `error: step ${random(9)} failed`,
			() => `${"y".repeat(1190 + random(20))}rror at the edge`,
			() => `   at frame (f.js:${random(99)}:1) ✗`,
			() => "ail",
		];
		for (let round = 0; round < 12; round++) {
			const weights = kinds.map(() => random(10));
			const lines: string[] = [];
			for (let index = 0; index < 6000 + random(6000); index++) {
				let pick = random(weights.reduce((sum, weight) => sum + weight, 0) + 1);
				let kind = 0;
				while (kind < kinds.length - 1 && pick >= (weights[kind] ?? 0)) pick -= weights[kind++] ?? 0;
				lines.push((kinds[kind] as () => string)());
			}
			const bytes = Buffer.from(lines.join(random(2) ? "\n" : "\r\n"));
			const expected = byDefinition(bytes);
			const important = new ImportantLines();
			for (let at = 0; at < bytes.length; ) {
				const size = [1, 100, 4096, 65_536, 1_048_576][random(5)] as number;
				important.scan(bytes.subarray(at, at + size));
				at += size;
			}
			expect(important.keptOutside("")).toEqual(expected.keptOutside(""));
			expect(important.seenOutside("")).toBe(expected.seenOutside(""));
			expect(important.unexamined).toBe(expected.unexamined);
		}
	});
});

describe("wordyShapeOf", () => {
	/** Its definition: the shape, when at least 8 characters of it are not '#', white space or punctuation. */
	const reference = (line: string) => {
		if (line.length < 8) return undefined;
		const shape = line.replace(/0x[0-9a-f]+|\d+/gi, "#");
		return shape.replace(/[#\s\p{P}]/gu, "").length >= 8 ? shape : undefined;
	};

	it("agrees with its regex definition on every character of the first planes, alone and in lines", () => {
		for (let code = 0; code < 0x3000; code++) {
			const character = String.fromCharCode(code);
			// Seven letters and the character: wordy exactly when the character counts.
			for (const line of [`abcdefg${character}`, `${character.repeat(8)}`, `x 12 ${character} 0x1f words`]) {
				expect(wordyShapeOf(line)).toBe(reference(line));
			}
		}
		for (const line of [
			"d000/f001.ts:3: // TODO revisit this",
			"‹« 12 »›……",
			"ab😀cd😀ef😀gh",
			"—_—_—_—_—_",
			"$+<=>^|~$+",
		]) {
			expect(wordyShapeOf(line)).toBe(reference(line));
		}
	});
});
