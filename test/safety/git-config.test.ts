import { describe, expect, it } from "vitest";
import { programPathsOf } from "../../src/safety/runs-later/git-config.js";

describe("programPathsOf", () => {
	it("names the first word of each command git starts, when it is a path", () => {
		const config = [
			"[core]",
			"\tfsmonitor = tools/fsmonitor.sh",
			// git takes its own quotes out; escaped ones reach the shell.
			'\tpager = \\"./bin/my pager\\" -R',
			"\teditor = vim",
			'[diff "pdf"]',
			"\ttextconv = ~/bin/pdf2text --layout",
			'[filter "crypt"]',
			"\tclean = ./crypt.sh clean %f",
			"[alias]",
			"\tlint = !./tools/lint.sh --fix",
			"\tst = status",
			"[credential]",
			"\thelper = store",
			'[credential "https://example.org"]',
			"\thelper = !/opt/helper get",
			"[user]",
			"\tname = a/b",
		].join("\n");
		expect(programPathsOf(config)).toEqual([
			"tools/fsmonitor.sh",
			"./bin/my pager",
			"~/bin/pdf2text",
			"./crypt.sh",
			"./tools/lint.sh",
			"/opt/helper",
		]);
	});

	it("leaves out core.fsmonitor's true and false (git's own monitor) and commands found on PATH", () => {
		expect(programPathsOf("[core]\n\tfsmonitor = true\n\tsshCommand = ssh -i ~/.ssh/key\n")).toEqual([]);
	});
});
