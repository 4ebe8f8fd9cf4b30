import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { displayPath, resolveToolPath } from "../../../src/workspace/paths/paths.js";

describe("paths", () => {
	const cwd = join(homedir(), "project");

	it("resolves relative, absolute, ~ and empty paths", () => {
		expect(resolveToolPath(cwd, "src/a.ts")).toBe(join(cwd, "src/a.ts"));
		expect(resolveToolPath(cwd, "/etc/hosts")).toBe("/etc/hosts");
		expect(resolveToolPath(cwd, "~/notes.md")).toBe(join(homedir(), "notes.md"));
		expect(resolveToolPath(cwd, "")).toBe(cwd);
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
});
