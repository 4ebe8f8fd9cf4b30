import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareCodePoints } from "../../../src/tools/fs/compare.js";
import { localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { pathVariants, resolveExistingPath, similarNames } from "../../../src/workspace/paths/near-miss.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();
const operations = localFileOperations;

describe("resolveExistingPath", () => {
	it("takes the literal path first", async () => {
		await writeFile(join(temp(), "a.txt"), "x");
		const resolved = await resolveExistingPath(temp(), "a.txt", operations);
		expect(resolved).toMatchObject({ absolutePath: join(temp(), "a.txt"), match: "exact" });
		expect(resolved.info?.kind).toBe("file");
	});

	it("finds a macOS screenshot name (U+202F before PM) typed with a plain space", async () => {
		const name = "Screenshot 2024-05-01 at 3.14.15\u202fPM.png";
		await writeFile(join(temp(), name), "x");
		const resolved = await resolveExistingPath(temp(), "Screenshot 2024-05-01 at 3.14.15 PM.png", operations);
		expect(resolved).toMatchObject({ absolutePath: join(temp(), name), match: "variant" });
	});

	it("finds an NFD name typed in NFC, and an NFC name typed in NFD", async () => {
		const decomposed = "Cafe\u0301.md";
		await writeFile(join(temp(), decomposed), "x");
		expect((await resolveExistingPath(temp(), "Caf\u00e9.md", operations)).absolutePath).toBe(join(temp(), decomposed));
		await writeFile(join(temp(), "na\u00efve.md"), "x");
		expect((await resolveExistingPath(temp(), "nai\u0308ve.md", operations)).absolutePath).toBe(
			join(temp(), "na\u00efve.md"),
		);
	});

	it("tolerates Unicode spaces in the argument and on disk", async () => {
		await writeFile(join(temp(), "my notes.txt"), "x");
		expect((await resolveExistingPath(temp(), "my\u00a0notes.txt", operations)).absolutePath).toBe(
			join(temp(), "my notes.txt"),
		);
		await writeFile(join(temp(), "thin\u2009space.txt"), "x");
		const resolved = await resolveExistingPath(temp(), "thin space.txt", operations);
		expect(resolved).toMatchObject({ absolutePath: join(temp(), "thin\u2009space.txt"), match: "folder-scan" });
	});

	it("forgives a trailing newline and the @ of a file mention", async () => {
		await writeFile(join(temp(), "notes.md"), "x");
		expect((await resolveExistingPath(temp(), "notes.md\n", operations)).absolutePath).toBe(join(temp(), "notes.md"));
		expect((await resolveExistingPath(temp(), "@notes.md", operations)).absolutePath).toBe(join(temp(), "notes.md"));
	});

	it("returns the literal path when nothing matches (a write creates it there)", async () => {
		const resolved = await resolveExistingPath(temp(), "sub/new.txt", operations);
		expect(resolved).toEqual({ absolutePath: join(temp(), "sub", "new.txt"), info: undefined, match: undefined });
	});

	it("drops surrounding whitespace from a path that matches nothing", async () => {
		expect((await resolveExistingPath(temp(), "new.ts\n", operations)).absolutePath).toBe(join(temp(), "new.ts"));
		const absolute = join(temp(), "elsewhere", "x.txt");
		expect((await resolveExistingPath(temp(), ` ${absolute} `, operations)).absolutePath).toBe(absolute);
		// A name that really has the space is still found as it is.
		await writeFile(join(temp(), " spaced"), "x");
		expect((await resolveExistingPath(temp(), " spaced", operations)).absolutePath).toBe(join(temp(), " spaced"));
	});

	it("lists the variants without the original", () => {
		expect(pathVariants("a b")).not.toContain("a b");
		expect(pathVariants("x 1 AM.png")).toContain("x 1\u202fAM.png");
	});
});

describe("similarNames", () => {
	it("suggests another case, another extension and close typos, best first", async () => {
		await mkdir(join(temp(), "src"));
		for (const name of ["Config.ts", "config.js", "confg.ts", "unrelated.md"])
			await writeFile(join(temp(), "src", name), "");
		const names = await similarNames(operations, join(temp(), "src", "config.ts"));
		expect(names.map((name) => name.slice(join(temp(), "src").length + 1))).toEqual([
			"Config.ts",
			"config.js",
			"confg.ts",
		]);
	});

	it("is empty when the folder does not exist", async () => {
		expect(await similarNames(operations, join(temp(), "nope", "x.ts"))).toEqual([]);
	});
});

describe("compareCodePoints", () => {
	it("orders by code point, not locale and not UTF-16 unit", () => {
		const names = ["b", "a", "B", "_x", "é", "\u{1F600}", "\uFF21", "a-b", "a.b"];
		expect([...names].sort(compareCodePoints)).toEqual(["B", "_x", "a", "a-b", "a.b", "b", "é", "\uFF21", "\u{1F600}"]);
	});
});
