import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli, repositoryRoot } from "../cli/helpers/cli-binary.js";
import { makePdf } from "../helpers/make-pdf.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();
const builtIndex = `${repositoryRoot}dist/index.js`;

// pdf.js sets globalThis.pdfjsLib when it is evaluated: a fresh process shows whether it was loaded.
const script = `
const { createTool } = await import(${JSON.stringify(builtIndex)});
const read = createTool("read", process.env.READ_DIR);
const loaded = () => "pdfjsLib" in globalThis;
const states = [loaded()];
await read.execute("1", { path: "a.txt" }, undefined);
states.push(loaded());
const pdf = await read.execute("2", { path: "a.pdf" }, undefined);
states.push(loaded(), pdf.content[0].text.includes("[Page 1 of 1]"));
console.log(JSON.stringify(states));
`;

// Makes the optional @napi-rs/canvas package unloadable, as on a platform without its prebuilt binary.
const WITHOUT_CANVAS = `
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
	if (request === "@napi-rs/canvas") throw Object.assign(new Error("Cannot find module '@napi-rs/canvas'"), { code: "MODULE_NOT_FOUND" });
	return resolve.call(this, request, ...rest);
};
`;

function runScript(preload: string[] = []) {
	return spawnSync(process.execPath, [...preload, "--input-type=module", "-e", script], {
		env: { ...process.env, READ_DIR: temp() },
		encoding: "utf8",
		timeout: 60_000,
	});
}

// The built package in a plain Node process, as users load it (tsx would resolve around the block below).
describe("read tool: pdf.js is loaded lazily", () => {
	beforeAll(() => {
		ensureBuiltCli();
	});

	it("is not loaded by importing the package or by a text read, only by a PDF read", async () => {
		await writeFile(join(temp(), "a.txt"), "plain text\n");
		await writeFile(join(temp(), "a.pdf"), makePdf(["only page"]));
		const child = runScript();
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout.trim())).toEqual([false, false, true, true]);
	});

	it("reads PDFs without the optional @napi-rs/canvas package, printing no warnings", async () => {
		await writeFile(join(temp(), "a.txt"), "plain text\n");
		await writeFile(join(temp(), "a.pdf"), makePdf(["only page"]));
		await writeFile(join(temp(), "no-canvas.cjs"), WITHOUT_CANVAS);
		const child = runScript(["--require", join(temp(), "no-canvas.cjs")]);
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout.trim())).toEqual([false, false, true, true]);
	});
});
