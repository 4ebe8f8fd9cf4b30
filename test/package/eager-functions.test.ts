import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error A build script in plain JavaScript, without type declarations.
import { eagerFunctionsText } from "../../scripts/eager-functions.mjs";
import { useTempDir } from "../helpers/temp-dir.js";

const eagerText = eagerFunctionsText as (
	text: string,
	chosen: (module: string) => Set<string> | undefined,
) => Promise<string | undefined>;

/** The functions chosen in the file below: those of dist/chosen.js but `notListed`. */
const chosen = (module: string) =>
	module === "dist/chosen.js"
		? new Set([
				"hoisted",
				"nested",
				"inner",
				"arrow",
				"neverCalledChosen",
				"onValue",
				"method",
				"usesThis",
				"get",
				"usesArguments",
				"first",
			])
		: undefined;

// A bundled file as esbuild writes it: imports, then each module's region under its comment line.
// `early` runs before the declarations it calls; `chosen` and `other` are two modules' regions.
// The anonymous function in `inner` goes with it; the one in `notListed` stays lazy with it.
const bundled = `import { join } from "node:path";

// dist/early.js
var early = hoisted(2) + nested(3);

// dist/chosen.js
function hoisted(value) {
  return value * 10;
}
function nested(value) {
  "use strict";
  return inner(value);
  function inner(x) {
    return [x, (() => this)()].length;
  }
}
var innerName = function() {};
var arrow = (value) => value + 1;
async function neverCalledChosen() {
  return join("a", "b");
}
var handlers = { onValue: () => 1 };
function usesThis() {
  const get = () => this;
  return get();
}
function usesArguments() {
  const first = async () => arguments[0];
  return first();
}
function notListed() {
  return [1].map((value) => value);
}
class Kept {
  method() {
    return 1;
  }
}

// dist/other.js
function neverCalledOther() {
  return 2;
}
export { early, arrow, handlers, Kept, innerName, usesThis, usesArguments };
`;

/** The functions V8 compiled to bytecode while importing `file` (its function events). */
function compiledOnImport(file: string, logFile: string): string[] {
	const result = spawnSync(
		process.execPath,
		[
			"--log-function-events",
			`--logfile=${logFile}`,
			"--no-logfile-per-isolate",
			"--input-type=module",
			"--eval",
			`await import(${JSON.stringify(pathToFileURL(file).href)});`,
		],
		{ encoding: "utf8", timeout: 30_000 },
	);
	expect(result.status, result.stderr).toBe(0);
	return readFileSync(logFile, "latin1")
		.split("\n")
		.filter((line) => line.startsWith("function,interpreter,"))
		.map((line) => line.split(",").slice(7).join(","));
}

describe("functions compiled as the bundle loads (scripts/eager-functions.mjs)", () => {
	const temp = useTempDir();

	it("has V8 compile the chosen module's functions on import, and leaves the others lazy", async () => {
		const text = await eagerText(bundled, chosen);
		expect(text).toBeDefined();
		const lazy = join(temp(), "lazy.mjs");
		const eager = join(temp(), "eager.mjs");
		await writeFile(lazy, bundled);
		await writeFile(eager, text as string);
		const before = compiledOnImport(lazy, join(temp(), "lazy.log"));
		const after = compiledOnImport(eager, join(temp(), "eager.log"));
		expect(before).not.toContain("neverCalledChosen");
		expect(after).toContain("neverCalledChosen");
		// An arrow too, on every V8 (before 13, a parenthesised arrow stayed lazy).
		expect(after).toContain("arrow");
		expect(after).not.toContain("neverCalledOther");
		expect(after).not.toContain("notListed");
		// A class member cannot be parenthesised: listed or not, it stays lazy.
		expect(after).not.toContain("method");
	});

	it("keeps what the module does: declarations callable before their line, names, `this`, directives", async () => {
		const text = (await eagerText(bundled, chosen)) as string;
		const file = join(temp(), "eager.mjs");
		await writeFile(file, text);
		const module = await import(pathToFileURL(file).href);
		const original = join(temp(), "original.mjs");
		await writeFile(original, bundled);
		const expected = await import(pathToFileURL(original).href);
		expect(module.early).toBe(expected.early);
		expect(module.arrow(1)).toBe(2);
		expect(module.arrow.name).toBe("arrow");
		expect(module.innerName.name).toBe("innerName");
		expect(module.handlers.onValue.name).toBe("onValue");
		expect(new module.Kept().method()).toBe(1);
		// An arrow that reads its surroundings' `this` or `arguments` stays an arrow.
		const target = {};
		expect(module.usesThis.call(target)).toBe(target);
		expect(await module.usesArguments("a", "b")).toBe("a");
		// The directive stays first in its body, so the function stays strict.
		expect(text).toMatch(/function nested\(value\) \{\n {2}"use strict";\nvar inner = \(function inner/);
		// The other module's text is as it was.
		expect(text).toContain("// dist/other.js\nfunction neverCalledOther() {\n  return 2;\n}\n");
	});

	it("changes nothing when no function is chosen", async () => {
		expect(await eagerText(bundled, () => undefined)).toBe(bundled);
	});
});
