import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../../src/tools/edit.js";
import { cpuMsSince } from "../../helpers/cpu-time.js";
import { useTempDir } from "../../helpers/temp-dir.js";

/**
 * A failed edit on a huge or pathological file answers quickly: every diagnosis and fallback is
 * linear or bounded. The bounds are on CPU time (a loaded machine stretches only the wall clock),
 * generous, and far below what the quadratic near-match regex took (seconds to minutes on these files).
 */

const tempDir = useTempDir();
const UNIT = "function a(b,c){return b+c}var d=a(1,2);";

/** A minified file: a few lines of `lineLength` characters, `size` characters in all. */
function minified(size: number, lineLength: number): string {
	const line = UNIT.repeat(Math.ceil(lineLength / UNIT.length));
	return `${line}\n`.repeat(Math.ceil(size / (line.length + 1)));
}

async function failedEdit(content: string, oldString: string, newString = "x") {
	const path = join(tempDir(), "min.js");
	await writeFile(path, content);
	const started = process.cpuUsage();
	let message = "";
	try {
		await createEditTool(tempDir()).execute("call", { path, old_string: oldString, new_string: newString }, undefined);
	} catch (error) {
		message = (error as Error).message;
	}
	// CPU time, not wall time: the bound is on the work, which a loaded machine does not change.
	const ms = cpuMsSince(started);
	expect(await readFile(path, "utf8")).toBe(content);
	return { message, ms };
}

describe("a failed edit is bounded", () => {
	it("400 KB of long lines, a long old_string that almost matches everywhere", async () => {
		const { message, ms } = await failedEdit(minified(400_000, 4000), `${UNIT.repeat(200)}zzz`);
		expect(message).toMatch(/old_string was not found/);
		expect(ms).toBeLessThan(2000);
	});

	it("5 MB minified: a drifted old_string, an old_string of punctuation only, a huge old_string", async () => {
		const content = minified(5 * 2 ** 20, 500_000);
		for (const oldString of [`${UNIT.repeat(20)}zzz`, "){}();", `${UNIT.repeat(20_000)}!`, "a(1, 2) ;var  q"]) {
			const { message, ms } = await failedEdit(content, oldString);
			expect(message, oldString.slice(0, 20)).toMatch(/old_string was not found/);
			expect(ms, oldString.slice(0, 20)).toBeLessThan(2000);
		}
	});

	it("a line of a million blanks with text after it", async () => {
		const content = `a${" ".repeat(1_000_000)}b\nc\n`;
		const { message, ms } = await failedEdit(content, "a b c d");
		expect(message).toMatch(/old_string was not found/);
		expect(ms).toBeLessThan(2000);
	});

	it("an old_string of lines that occur everywhere ends with an error, not a stalled call", async () => {
		const content = "  }\n".repeat(400_000);
		const { message, ms } = await failedEdit(content, `${"}\n".repeat(2000)};`);
		expect(message).toMatch(/too repetitive to place.*with a distinctive line/);
		expect(ms).toBeLessThan(2000);
	});

	it("searching near old_string's rarest word still sees every place: distant tolerant matches are ambiguous", async () => {
		const filler = Array.from({ length: 50_000 }, (_, index) => `row ${index} filler text`);
		filler[1000] = "\tunique_call( first,  second );";
		filler[40_000] = "  unique_call(first, second);  ";
		const content = `${filler.join("\r\n")}\r\n`;
		const { message } = await failedEdit(content, "unique_call(first,second);");
		expect(message).toMatch(
			/old_string matches 2 places \(matched ignoring spaces inside lines.*at lines 1001, 40001/s,
		);
		const path = join(tempDir(), "min.js");
		await createEditTool(tempDir()).execute(
			"call",
			{ path, old_string: "unique_call(first,second);", new_string: "done();", replace_all: true },
			undefined,
		);
		expect(await readFile(path, "utf8")).toBe(
			content.replace("unique_call( first,  second );", "done();").replace("unique_call(first, second);", "done();"),
		);
	});
});
