import { beforeAll, describe, expect, it } from "vitest";
import { exactPathSpecifier } from "../../src/safety/permissions/path-pattern.js";
import {
	compileCommandPattern,
	modeDecision,
	parseRule,
	RuleSyntaxError,
	subjectOf,
	toolCategory,
} from "../../src/safety/permissions/rules.js";
import { loadShellParser, splitCommand } from "../../src/safety/shell-policy/index.js";
import { ruleSet } from "./rule-set.js";

const rules = ruleSet;

const command = (text: string) => subjectOf("bash", { command: text });
beforeAll(() => loadShellParser());

const path = (lexicalPath: string, realPath = lexicalPath) => ({ kind: "path" as const, lexicalPath, realPath });

describe("splitCommand", () => {
	it.each([
		["npm run test && git status", ["npm run test", "git status"]],
		["a || b | c; d & e\nf", ["a", "b", "c", "d", "e", "f"]],
		["ls 2>&1 | grep x &> out", ["ls 2>&1", "grep x &> out"]],
		["(cd x && make) ; { echo a; echo b; }", ["cd x", "make", "echo a", "echo b"]],
		["git commit -m 'a && b' # comment && rm -rf /", ["git commit -m 'a && b'"]],
		["echo a\\;b", ["echo a\\;b"]],
		["npm   run\ttest", ["npm run test"]],
		["iffy thing; done_it", ["iffy thing", "done_it"]],
		["echo a \\\n  b # note", ["echo a \\ b"]],
		["echo a#b #c", ["echo a#b"]],
		["x=1; (  cd a ) && { b; }", ["x=1", "cd a", "b"]],
		["a && b > f", ["a", "b > f"]],
	])("%j → %j", (input, parts) => {
		expect(splitCommand(input)).toEqual(parts);
	});

	it("reads PowerShell pipelines and statements with the PowerShell parser", async () => {
		await loadShellParser("powershell");
		expect(
			splitCommand("Get-ChildItem | Select-Object Name; git status && npm test\nWrite-Host 'a;b'", "powershell"),
		).toEqual(["Get-ChildItem", "Select-Object Name", "git status", "npm test", "Write-Host 'a;b'"]);
	});
});

describe("parseRule", () => {
	it("parses Tool and Tool(specifier), lower-casing the tool", () => {
		expect(parseRule("Bash(npm run test:*)", "allow", "f")).toMatchObject({
			toolName: "bash",
			specifier: "npm run test:*",
		});
		expect(parseRule("read", "deny", "f")).toEqual({ behavior: "deny", toolName: "read", text: "read", source: "f" });
		expect(parseRule("edit(*)", "allow", "f").specifier).toBeUndefined();
		expect(parseRule("bash(echo (a))", "allow", "f").specifier).toBe("echo (a)");
	});

	it.each(["", "bash(", "bash()", "(x)", "two words"])("rejects %j", (text) => {
		expect(() => parseRule(text, "allow", "f")).toThrow(RuleSyntaxError);
	});
});

describe("command patterns", () => {
	it("prefix with :* matches the command alone or with arguments, not a longer word", () => {
		const pattern = compileCommandPattern("npm run test:*", "bash");
		expect(pattern.test("npm run test")).toBe(true);
		expect(pattern.test("npm run test -- --watch")).toBe(true);
		expect(pattern.test("npm run testing")).toBe(false);
		expect(pattern.test("npm run build")).toBe(false);
	});

	it("* is a wildcard, \\* a literal star, and the rest must match exactly", () => {
		expect(compileCommandPattern("git * --dry-run", "bash").test("git clean -fd --dry-run")).toBe(true);
		expect(compileCommandPattern("ls \\*.ts", "bash").test("ls *.ts")).toBe(true);
		expect(compileCommandPattern("ls \\*.ts", "bash").test("ls a.ts")).toBe(false);
		expect(compileCommandPattern("git status", "bash").test("git status --short")).toBe(false);
		expect(compileCommandPattern("Get-Item:*", "powershell").test("get-item x")).toBe(true);
	});
});

describe("RuleSet", () => {
	it("allows a compound command only when every part is allowed", () => {
		const set = rules(["bash(npm run test:*)", "bash(git status)"]);
		expect(set.evaluate("bash", command("npm run test && git status")).behavior).toBe("allow");
		const partial = set.evaluate("bash", command("npm run test && rm -rf /"));
		expect(partial.behavior).toBeUndefined();
		expect(partial.unallowedParts).toEqual(["rm -rf /"]);
		for (const sneaky of [
			"npm run test; rm -rf x",
			"npm run test $(rm -rf x)",
			"npm run test `rm x`",
			"npm run test\nrm x",
			"npm run test | sh",
			"npm run test || rm x",
		]) {
			expect(set.evaluate("bash", command(sneaky)).behavior, sneaky).toBeUndefined();
		}
	});

	it("deny beats ask beats allow, and deny sees through wrappers and variable assignments", () => {
		const set = rules(["bash", "bash(rm:*)"], ["bash(git push:*)"], ["bash(rm -rf:*)"]);
		expect(set.evaluate("bash", command("ls")).behavior).toBe("allow");
		expect(set.evaluate("bash", command("git push origin")).behavior).toBe("ask");
		expect(set.evaluate("bash", command("rm -rf build")).behavior).toBe("deny");
		expect(set.evaluate("bash", command("FOO=1 sudo /bin/rm -rf build")).behavior).toBe("deny");
		expect(set.evaluate("bash", command("echo $(rm -rf build)")).behavior).toBe("deny");
		expect(set.evaluate("bash", command("rm file")).behavior).toBe("allow");
	});

	it("deny sees through quoting, timeout and shells' -c scripts", () => {
		const set = rules(["bash"], [], ["bash(rm:*)"]);
		for (const sneaky of [
			"\\rm -rf build",
			"r\\m -rf build",
			'"rm" -rf build',
			"'rm' -rf build",
			"timeout 5 rm -rf build",
			"timeout -s KILL 5s rm -rf build",
			'bash -c "rm -rf build"',
			"sh -c 'echo hi; rm -rf build'",
			"sudo bash -c 'sh -c \"rm -rf build\"'",
		]) {
			expect(set.evaluate("bash", command(sneaky)).behavior, sneaky).toBe("deny");
		}
		for (const harmless of ["echo rm", 'echo "rm -rf"', "git rm x", "bash -c 'echo fine'", "timeout 5 ls"]) {
			expect(set.evaluate("bash", command(harmless)).behavior, harmless).toBe("allow");
		}
	});

	it("allow rules do not see through variable assignments", () => {
		const set = rules(["bash(npm test)"]);
		expect(set.evaluate("bash", command("PATH=/tmp/evil npm test")).behavior).toBeUndefined();
	});

	it("matches gitignore-style path patterns, anchored at the project root or home", () => {
		const set = rules(
			["edit(src/**)", "write(/package.json)", "read(*.md)"],
			[],
			["read(~/.ssh/**)", "read(//etc/**)"],
		);
		expect(set.evaluate("edit", path("/proj/src/a/b.ts")).behavior).toBe("allow");
		expect(set.evaluate("edit", path("/proj/lib/a.ts")).behavior).toBeUndefined();
		expect(set.evaluate("write", path("/proj/package.json")).behavior).toBe("allow");
		expect(set.evaluate("write", path("/proj/sub/package.json")).behavior).toBeUndefined();
		expect(set.evaluate("read", path("/proj/docs/deep/x.md")).behavior).toBe("allow");
		expect(set.evaluate("read", path("/home/user/.ssh/id_rsa")).behavior).toBe("deny");
		expect(set.evaluate("read", path("/etc/passwd")).behavior).toBe("deny");
		// A path that looks harmless but leads into ~/.ssh is denied; allow needs both views.
		expect(set.evaluate("read", path("/proj/notes.md", "/home/user/.ssh/notes.md")).behavior).toBe("deny");
		expect(set.evaluate("edit", path("/proj/src/link.ts", "/outside/x.ts")).behavior).toBeUndefined();
		// A sibling sharing the prefix is not under /proj.
		expect(set.evaluate("edit", path("/proj-evil/src/a.ts")).behavior).toBeUndefined();
	});

	it("edit rules also govern write, read rules also govern ls, grep and find", () => {
		const set = rules(["edit(src/**)"], [], ["read(~/.ssh/**)"]);
		expect(set.evaluate("write", path("/proj/src/new.ts")).behavior).toBe("allow");
		expect(set.evaluate("grep", { ...path("/home/user/.ssh"), scansBelow: true }).behavior).toBe("deny");
		expect(set.evaluate("find", path("/home/user/.ssh/x")).behavior).toBe("deny");
		expect(set.evaluate("ls", { ...path("/home/user"), scansBelow: true }).behavior).toBeUndefined();
		expect(rules(["write(src/**)"]).evaluate("edit", path("/proj/src/a.ts")).behavior).toBeUndefined();
	});

	it("tells explicit path allows from tool-wide ones", () => {
		expect(rules(["write"]).evaluate("write", path("/proj/.env")).explicitlyAllowed).toBe(false);
		expect(rules(["write(.env)"]).evaluate("write", path("/proj/.env")).explicitlyAllowed).toBe(true);
	});

	it("exact path specifiers name exactly one path", () => {
		const set = rules([
			`write(${exactPathSpecifier("/proj/src/a*[1].ts", "/proj")})`,
			`read(${exactPathSpecifier("/opt/x.ts", "/proj")})`,
		]);
		expect(set.evaluate("write", path("/proj/src/a*[1].ts")).behavior).toBe("allow");
		expect(set.evaluate("write", path("/proj/src/ab1.ts")).behavior).toBeUndefined();
		expect(set.evaluate("write", path("/proj/x/src/a*[1].ts")).behavior).toBeUndefined();
		expect(set.evaluate("read", path("/opt/x.ts")).behavior).toBe("allow");
	});
});

describe("RuleSet.restrictedBelow", () => {
	const below = (rule: string, directory: string) =>
		ruleSet([], [], [rule]).restrictedBelow("read", directory, directory) !== undefined;

	it("finds a read rule that may match some path below a directory", () => {
		expect(below("read(.env)", "/proj")).toBe(true); // unanchored: at any depth
		expect(below("read(*.pem)", "/proj/src")).toBe(true);
		expect(below("read(/secrets/**)", "/proj")).toBe(true);
		expect(below("read(/secrets/**)", "/proj/secrets/a")).toBe(true);
		expect(below("read(/SECRETS/x)", "/proj/secrets")).toBe(true); // the matcher ignores case
		expect(below("read(/a/*/key)", "/proj/a/b")).toBe(true);
		expect(below("read(/a/**/key)", "/proj/a/b/c")).toBe(true);
		expect(below("read(~/.ssh/**)", "/home")).toBe(true); // the home folder lies below /home
		expect(below("read", "/proj/src")).toBe(true);
	});

	it("passes a directory no rule can reach", () => {
		expect(below("read(/secrets/**)", "/proj/src")).toBe(false);
		expect(below("read(~/.ssh/**)", "/proj")).toBe(false);
		expect(below("read(//etc/shadow)", "/proj")).toBe(false);
		expect(below("read(/)", "/proj")).toBe(false); // names the root itself, not what lies below
		expect(ruleSet(["read(.env)"]).restrictedBelow("read", "/proj", "/proj")).toBeUndefined(); // allow rules
		expect(ruleSet([], [], ["bash(.env)"]).restrictedBelow("read", "/proj", "/proj")).toBeUndefined();
	});
});

describe("modes", () => {
	it("decide calls no rule matched", () => {
		expect(modeDecision("default", toolCategory("read"))).toBe("allow");
		expect(modeDecision("default", toolCategory("edit"))).toBe("ask");
		expect(modeDecision("default", toolCategory("bash"))).toBe("ask");
		expect(modeDecision("accept-edits", toolCategory("write"))).toBe("allow");
		expect(modeDecision("accept-edits", toolCategory("bash"))).toBe("ask");
		expect(modeDecision("read-only", toolCategory("write"))).toBe("deny");
		expect(modeDecision("read-only", toolCategory("grep"))).toBe("allow");
		expect(modeDecision("yolo", toolCategory("bash"))).toBe("allow");
		expect(modeDecision("default", toolCategory("mcp_tool", true))).toBe("allow");
		expect(modeDecision("default", toolCategory("mcp_tool"))).toBe("ask");
	});
});
