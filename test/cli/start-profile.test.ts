// Which start each command line gets: its code cache entry, and whether the grammars' flags are set
// before the bundle compiles. A wrong pick costs only speed, so the cases pin the picks that matter.
import { describe, expect, it } from "vitest";
import { startProfile } from "../../src/cli/startup/start-profile.js";

const bash = (command: unknown, ...more: string[]) =>
	startProfile(["tool", "bash", JSON.stringify({ command }), ...more]);

describe("startProfile", () => {
	it("starts a bash call of one program and its plain words without the grammars' flags", () => {
		const plain = { cacheEntry: "tool-bash-plain", baselineWebAssembly: false };
		expect(bash("echo ok")).toEqual(plain);
		expect(bash("git status --short", "--json")).toEqual(plain);
		expect(startProfile(["--cwd", "sub", "tool", "bash", '  {"command": "npm test"}'])).toEqual(plain);
	});

	it("starts any other bash call with the flags, under the command's entry", () => {
		const parsed = { cacheEntry: "tool", baselineWebAssembly: true };
		for (const command of ["echo ok | cat", "echo $HOME", "export A=1", "ls *.ts", "A=1 env", "", 42]) {
			expect(bash(command), String(command)).toEqual(parsed);
		}
		// Arguments piped on stdin, or JSON that does not parse: not known at the start.
		expect(startProfile(["tool", "bash"])).toEqual(parsed);
		expect(startProfile(["tool", "bash", '{"command": "echo ok"'])).toEqual(parsed);
	});

	it("keeps the tools without grammars, help, and the other commands as they were", () => {
		expect(startProfile(["tool", "read", '{"path":"a"}'])).toEqual({
			cacheEntry: "tool-read",
			baselineWebAssembly: false,
		});
		expect(startProfile(["tool", "bash", "--help"])).toEqual({ cacheEntry: "help", baselineWebAssembly: false });
		expect(startProfile(["mcp"])).toEqual({ cacheEntry: "mcp", baselineWebAssembly: true });
		expect(startProfile(["tool", "write", '{"path":"a","content":"echo ok"}'])).toEqual({
			cacheEntry: "tool",
			baselineWebAssembly: true,
		});
	});
});
