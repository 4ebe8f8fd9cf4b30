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
		expect(programPathsOf("[core]\n\tfsmonitor = true\n\tsshCommand = ssh -o BatchMode=yes\n")).toEqual([]);
		// git runs git-credential-gcloud.sh from PATH (the Google Cloud SDK's setting).
		expect(programPathsOf("[credential]\n\thelper = gcloud.sh\n[alias]\n\tx = !run.sh && f() { go.sh; }\n")).toEqual(
			[],
		);
	});

	it("names the files a command gives its program to run, too: scripts, option values, a shell function's commands", () => {
		const config = [
			"[core]",
			"\tfsmonitor = sh tools/fsmonitor.sh",
			"\tsshCommand = ssh -i keys/deploy -F=conf/ssh_config",
			"[alias]",
			"\tlint = !sh lint.sh --fix",
			'\tcheck = "!f() { bash scripts/check.sh \\"$@\\" | tee $GIT_DIR/log; }; f"',
			"\tweb = !open https://example.org/a/b",
			"\tenv = !RUNNER=./run.py python3 -m x",
		].join("\n");
		expect(programPathsOf(config)).toEqual([
			"tools/fsmonitor.sh",
			"keys/deploy",
			"conf/ssh_config",
			"lint.sh",
			"scripts/check.sh",
			"./run.py",
		]);
	});
});
