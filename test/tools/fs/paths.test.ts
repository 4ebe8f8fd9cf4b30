import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { displayPath, resolveToolPath } from "../../../src/workspace/paths/paths.js";
import { schedulingKey } from "../../../src/workspace/paths/scheduling-key.js";

describe("paths", () => {
	const cwd = join(homedir(), "project");

	it("resolves relative, absolute, ~ and empty paths", () => {
		expect(resolveToolPath(cwd, "src/a.ts")).toBe(join(cwd, "src/a.ts"));
		expect(resolveToolPath(cwd, "/etc/hosts")).toBe("/etc/hosts");
		expect(resolveToolPath(cwd, "~/notes.md")).toBe(join(homedir(), "notes.md"));
		expect(resolveToolPath(cwd, "")).toBe(cwd);
	});

	it("resolves a relative path as resolve() would, also where the plain join is not normal", () => {
		const cwds = ["/w", "/", "/w/", "/w/./x", "/w//x", "w", "/w/.."];
		const paths = [
			"a",
			"a/b.txt",
			"./a",
			"a/./b",
			"a/../b",
			"..",
			"../a",
			"a/",
			"a//b",
			".",
			"..a",
			"a..",
			".a/b",
			"a/..",
		];
		for (const base of cwds) for (const path of paths) expect(resolveToolPath(base, path)).toBe(resolve(base, path));
	});

	it("shows paths inside cwd relative, including names that start with two dots", () => {
		expect(displayPath(cwd, cwd)).toBe(".");
		expect(displayPath(cwd, join(cwd, "src/a.ts"))).toBe("src/a.ts");
		expect(displayPath(cwd, join(cwd, "..notes"))).toBe("..notes");
		expect(displayPath(cwd, join(cwd, "...", "x"))).toBe(".../x");
	});

	it("shows paths outside cwd absolute", () => {
		expect(displayPath(cwd, homedir())).toBe(homedir());
		expect(displayPath(cwd, join(homedir(), "other/file"))).toBe(join(homedir(), "other/file"));
		expect(displayPath(cwd, `${cwd}-evil/file`)).toBe(`${cwd}-evil/file`);
	});

	it("shows a path as relative() would, also one not written normally (the sliced form is only for normal paths)", () => {
		const cases: [string, string][] = [
			["/w", "/w/a/./b"],
			["/w", "/w/a/../b"],
			["/w", "/w//a"],
			["/w", "/w/a/"],
			["/w/", "/w/a"],
			["/w/.", "/w/a"],
			["/", "/a/b"],
			["/", "/"],
			["/w", "/w"],
		];
		for (const [from, to] of cases) expect(displayPath(from, to)).toBe(relative(from, to) || ".");
	});

	it("gives a file's scheduling key whether or not the folder before it was the same", () => {
		expect(schedulingKey("/W/A/x.TXT")).toBe("/w/a/x.txt");
		expect(schedulingKey("/W/A/y.txt")).toBe("/w/a/y.txt");
		expect(schedulingKey("/W/B/y.txt")).toBe("/w/b/y.txt");
		expect(schedulingKey("/a")).toBe("/a");
		expect(schedulingKey("/")).toBe("");
		expect(schedulingKey("/W/A/")).toBe("/w/a");
		expect(schedulingKey("/W/A/x.TXT")).toBe("/w/a/x.txt");
	});
});
