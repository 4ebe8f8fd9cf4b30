import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makePdf } from "../helpers/make-pdf.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();
const sourceIndex = fileURLToPath(new URL("../../src/index.ts", import.meta.url));

// pdf.js sets globalThis.pdfjsLib when it is evaluated: a fresh process shows whether it was loaded.
const script = `
const { createTool } = await import(${JSON.stringify(sourceIndex)});
const read = createTool("read", process.env.READ_DIR);
const loaded = () => "pdfjsLib" in globalThis;
const states = [loaded()];
await read.execute("1", { path: "a.txt" }, undefined);
states.push(loaded());
const pdf = await read.execute("2", { path: "a.pdf" }, undefined);
states.push(loaded(), pdf.content[0].text.includes("[Page 1 of 1]"));
console.log(JSON.stringify(states));
`;

describe("read tool: pdf.js is loaded lazily", () => {
	it("is not loaded by importing the package or by a text read, only by a PDF read", async () => {
		await writeFile(join(temp(), "a.txt"), "plain text\n");
		await writeFile(join(temp(), "a.pdf"), makePdf(["only page"]));
		const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
			cwd: fileURLToPath(new URL("../..", import.meta.url)),
			env: { ...process.env, READ_DIR: temp() },
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout.trim())).toEqual([false, false, true, true]);
	});
});
