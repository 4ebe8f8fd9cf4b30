import { beforeAll, describe, expect, it } from "vitest";
import { subjectOf } from "../../src/safety/permissions/rules.js";
import { analyzeCommand, loadShellParser } from "../../src/safety/shell-policy/index.js";
import { ruleSet } from "../safety/rule-set.js";

/**
 * Red-team tests of the PowerShell side of the shell policy (issue 25): forms of PowerShell that
 * run `Remove-Item` (or rm) under a deny rule, read with the PowerShell grammar into the same
 * whitelist as bash. Pure policy: PowerShell is not installed, and the verdict is the whole effect
 * (a denied call never starts the shell; `powershell-cli.test.ts` shows that with the built CLI).
 */
beforeAll(async () => {
	await loadShellParser("powershell");
	await loadShellParser("bash");
});

const powershell = (command: string) => subjectOf("powershell", { command });

function verdict(command: string, deny: string[], allow: string[] = []) {
	return ruleSet(allow, [], deny).evaluate("powershell", powershell(command));
}

// Each ran Remove-Item past `deny powershell(Remove-Item:*)` on the hand-written splitter (checked on the base commit).
const removeItemForms: [string, string][] = [
	["the alias del", "del victim"],
	["the alias ri", "ri victim"],
	["the alias erase", "erase victim"],
	["a module-qualified name", "Microsoft.PowerShell.Management\\Remove-Item victim"],
	["the call operator with a subexpression", "& (Get-Command Remove-Item) victim"],
	["Set-Alias, then the alias", "Set-Alias gone Remove-Item; gone victim"],
	["a function defined through New-Item", "New-Item -Path function:gone -Value 'Remove-Item victim'; gone"],
	["a script block created from a string", "[scriptblock]::Create('Remove-Item victim').Invoke()"],
	["an abbreviated -Command", "pwsh -Comm 'Remove-Item victim'"],
	["-EncodedCommand", "pwsh -enc UgBlAG0AbwB2AGUALQBJAHQAZQBtACAAdgBpAGMAdABpAG0A"],
	["Windows PowerShell's positional command", "powershell Remove-Item victim"],
	["cmd /c", "cmd /c del victim"],
	["a .NET method", "[IO.File]::Delete('victim')"],
	["a stop-parsing token", "cmd --% /c del victim"],
];

// Forms the splitter already caught, kept as a regression list for the parser.
const alsoDenied: [string, string][] = [
	["a script block in ForEach-Object", "Get-ChildItem | ForEach-Object { Remove-Item $_ }"],
	["Invoke-Expression", "iex 'Remove-Item victim'"],
	["a variable as the command", "$c = 'Remove-Item'; & $c victim"],
	["dot-sourcing a script block", ". { Remove-Item victim }"],
	["a backtick inside the name", "Re`move-Item victim"],
	["Invoke-Command", "Invoke-Command -ScriptBlock { Remove-Item victim }"],
	["Start-Process", "Start-Process pwsh -ArgumentList '-c','Remove-Item victim'"],
	["a subexpression in a string", 'Write-Output "$(Remove-Item victim)"'],
	["a subexpression in a here-string", 'Write-Output @"\n$(Remove-Item victim)\n"@'],
	["splatting", "$a = @{Path='victim'}; Remove-Item @a"],
	["a function definition", "function gone { Remove-Item victim }; gone"],
	["an if statement", "if ($true) { Remove-Item victim }"],
	["a loop", "foreach ($f in 'victim') { Remove-Item $f }"],
	["the pipeline's second command", "Get-Item victim | Remove-Item"],
	["an expression piped into a script block", "'victim' | % { Remove-Item $_ }"],
	["the call operator with a quoted name", "& 'Remove-Item' victim"],
];

describe("deny powershell(Remove-Item:*) holds (PowerShell grammar)", () => {
	it.each([...removeItemForms, ...alsoDenied])("against %s", (_name, command) => {
		expect(verdict(command, ["powershell(Remove-Item:*)"]).behavior).toBe("deny");
	});

	// Native programs receive the same words under PowerShell as under bash: the bash readers apply.
	it.each([
		["sudo", "sudo rm victim"],
		["env", "env rm victim"],
		["bash -c", "bash -c 'rm victim'"],
		["find -exec", "find . -name victim -exec rm '{}' ';'"],
		["git -c alias", "git -c 'alias.x=!rm victim' x"],
		["a Windows path to rm.exe", "C:\\tools\\rm.exe victim"],
	])("deny powershell(rm:*) holds against %s", (_name, command) => {
		expect(verdict(command, ["powershell(rm:*)"]).behavior).toBe("deny");
	});

	it("names the construct that made a command opaque", () => {
		expect(verdict("rm @args", ["powershell(Remove-Item:*)"]).construct?.construct).toBe("splatting");
		expect(verdict("echo { x }", ["powershell(Remove-Item:*)"]).construct?.construct).toBe("script block");
		expect(verdict("echo $(x)", ["powershell(Remove-Item:*)"]).construct?.construct).toBe("subexpression");
		expect(verdict('Write-Output "a`tb"', ["powershell(Remove-Item:*)"]).construct?.construct).toBe("backtick escape");
		expect(verdict("iex $x", ["powershell(Remove-Item:*)"]).construct?.construct).toBe("eval");
	});

	it("an overlong command is opaque", () => {
		expect(analyzeCommand(`Write-Output ${"a ".repeat(40_000)}`, "powershell").opaque?.construct).toBe(
			"command too long",
		);
	});
});

describe("plain PowerShell stays plain", () => {
	it.each([
		["Get-ChildItem -Recurse | Select-Object Name"],
		["git status && npm test"],
		["Write-Output 'it''s' \"home: $env:HOME\" > out.txt 2>&1"],
		["Get-Content notes.txt -Tail 5; Get-Date"],
		["& git log -n 5"],
		["Get-Process 2>$null | Sort-Object CPU"],
	])("%s matches no deny rule and an allow rule for each command runs it", (command) => {
		const analysis = analyzeCommand(command, "powershell");
		expect(analysis.opaque).toBeUndefined();
		expect(verdict(command, ["powershell(Remove-Item:*)", "powershell(rm:*)"]).behavior).toBeUndefined();
		const allows = analysis.parts.map((part) => `powershell(${part})`);
		expect(verdict(command, ["powershell(Remove-Item:*)"], allows).behavior).toBe("allow");
	});

	it("a plain variable may stand for an argument a deny rule names", () => {
		expect(verdict("git push $flag", ["powershell(git push --force:*)"]).behavior).toBe("deny");
		expect(verdict("Write-Output $env:HOME", ["powershell(Remove-Item:*)"]).behavior).toBeUndefined();
	});

	it("redirections and writing cmdlets are write targets", () => {
		const writes = (command: string) =>
			analyzeCommand(command, "powershell").writes.map((write) => [write.word.value, write.via]);
		expect(writes("Get-Date > /tmp/a.txt")).toEqual([["/tmp/a.txt", ">"]]);
		expect(writes("Get-Date | Out-File -FilePath:/tmp/b.txt -Append")).toEqual([["/tmp/b.txt", "out-file"]]);
		expect(writes("Set-Content ~/.bashrc 'x'")).toEqual([["~/.bashrc", "set-content"]]);
		expect(writes("Get-Date | Tee-Object /tmp/c.txt")).toEqual([["/tmp/c.txt", "tee-object"]]);
		expect(writes("Copy-Item a.txt /tmp/d.txt")).toEqual([["/tmp/d.txt", "copy-item"]]);
		expect(writes("sort -o /tmp/e.txt list")).toEqual([["/tmp/e.txt", "sort -o"]]);
	});
});

// Arguments of native programs the PowerShell grammar reads as errors; before, each made the
// command opaque, so an allow rule for the program asked.
describe("native programs' --opt=value, -- and find's {} +", () => {
	it.each([
		["git log --format=%H", ["powershell(git log:*)"]],
		["git log --since=2024-01-01 -n 3", ["powershell(git log:*)"]],
		["git diff -- src", ["powershell(git diff:*)"]],
		["npm test -- --watch", ["powershell(npm test:*)"]],
		["mvn -DskipTests=true package", ["powershell(mvn:*)"]],
		["find . -name '*.ts' -exec grep -l TODO {} +", ["powershell(find:*)", "powershell(grep:*)"]],
		[
			"git log --format=%H | Select-Object -First 1; git diff -- src",
			["powershell(git:*)", "powershell(Select-Object:*)"],
		],
	])("%s is plain and runs under an allow rule for it", (command, allow) => {
		expect(analyzeCommand(command, "powershell").opaque).toBeUndefined();
		expect(verdict(command, ["powershell(Remove-Item:*)"], allow).behavior).toBe("allow");
	});

	it("the words are read as PowerShell passes them: the runner's program, the written file", () => {
		expect(verdict("find . -name x -exec rm {} +", ["powershell(rm:*)"]).behavior).toBe("deny");
		expect(verdict("find . -exec grep -l x {} +", [], ["powershell(find:*)"]).behavior).not.toBe("allow");
		const writes = analyzeCommand("git log --output=/tmp/git-log", "powershell").writes;
		expect(writes.map((write) => write.word.value)).toEqual(["/tmp/git-log"]);
	});

	it("a bare -- matches rules both with it (an executable) and without it (a script taking it as the end of parameters)", () => {
		expect(verdict("npm test -- --watch", ["powershell(npm test --watch:*)"]).behavior).toBe("deny");
		expect(verdict("git checkout -- src", ["powershell(git checkout --:*)"]).behavior).toBe("deny");
	});

	it.each([
		["a cmdlet, which binds -- itself", "Remove-Item -- -Recurse victim", "unparsed syntax"],
		["an alias, which may be a cmdlet", "sort --output=x list", "unparsed syntax"],
		["{} outside find (a script block)", "git log {}", "script block"],
		["a value holding a dot (PowerShell splits it)", "git log --output=a.txt", "unparsed syntax"],
		["-name:value after -- (PowerShell splits it)", "git log -- -v:diag", "unparsed syntax"],
		["a backtick-escaped blank before the option", "git log` --format=x", "unparsed syntax"],
		["an option at a command's place", "--format=x", "unparsed syntax"],
	])("stays opaque: %s", (_name, command, construct) => {
		expect(analyzeCommand(command, "powershell").opaque?.construct).toBe(construct);
	});

	it("masking never reads across quotes: a quoted ; still separates the commands", () => {
		const command = "echo 'a --x=' ; Remove-Item victim ; echo ' b'";
		expect(verdict(command, ["powershell(Remove-Item:*)"]).behavior).toBe("deny");
		expect(analyzeCommand("echo 'a --x=y b'", "powershell").parts).toEqual(["echo 'a --x=y b'"]);
	});
});
