import { beforeAll, describe, expect, it } from "vitest";
import { checkRuleToolNames, UnknownToolRuleError } from "../../src/safety/permissions/rule-check.js";
import { parseRule, RuleSyntaxError, subjectOf } from "../../src/safety/permissions/rules.js";
import { analyzeCommand, loadShellParser, UNKNOWN } from "../../src/safety/shell-policy/index.js";
import { ruleSet } from "./rule-set.js";

const rules = ruleSet;

const command = (text: string) => subjectOf("bash", { command: text });

beforeAll(() => loadShellParser());

describe("analyzeCommand: words and redirections", () => {
	it("removes quotes, keeps redirections apart, and marks what the shell would change", () => {
		const analysis = analyzeCommand(`2>/dev/null "r"m -f 'a b' >out $x *.ts`);
		expect(analysis.opaque).toBeUndefined();
		expect(analysis.forms[0]?.[0]).toBe(`rm -f a b ${UNKNOWN} *.ts`);
		// The redirections' targets, and rm's operands (it changes them).
		expect(analysis.writes.map((write) => write.via).sort()).toEqual([">", ">", "rm", "rm", "rm"]);
		expect(
			analysis.writes
				.filter((write) => write.via === ">")
				.map((write) => write.word.value)
				.sort(),
		).toEqual(["/dev/null", "out"]);
	});

	it("tells written files from descriptor copies, input and heredocs", () => {
		const targets = (text: string) => analyzeCommand(text).writes.map((write) => write.word.value);
		expect(targets("make 2>&1 >&- <in <<<'x' >>log &>all >|forced")).toEqual(["log", "all", "forced"]);
		expect(targets("echo x>out")).toEqual(["out"]);
		expect(targets("cat <<EOF > f\nhi $x\nEOF")).toEqual(["f"]);
	});
});

describe("analyzeCommand: what the rules are checked against", () => {
	it.each([
		["2>/dev/null rm x", "rm x"],
		[">log rm x", "rm x"],
		["sudo -u root env FOO=1 nice -n 5 rm x", "rm x"],
		["timeout -s KILL -k 1 5s rm x", "rm x"],
		["xargs -a list -I {} rm {}", "rm {}"],
		["xargs -0 -n 1 rm", "rm"],
		["flock -w 3 lockfile rm x", "rm x"],
		["flock lockfile -c 'rm x'", "rm x"],
		["chroot --userspec=a:b / rm x", "rm x"],
		["strace -f -e trace=file -o log rm x", "rm x"],
		["watch -n 1 'rm x'", "rm x"],
		["stdbuf -oL rm x", "rm x"],
		["ionice -c 3 -n 7 rm x", "rm x"],
		["taskset -c 0 rm x", "rm x"],
		["busybox rm x", "rm x"],
		["command -p rm x", "rm x"],
		["setsid -w rm x", "rm x"],
		["nohup rm x", "rm x"],
		["doas -u root rm x", "rm x"],
		["unbuffer rm x", "rm x"],
		["/usr/bin/time -f %e rm x", "rm x"],
		["time -p rm x", "rm x"],
		["env -S 'rm x'", "rm x"],
		["bash -ec 'cd a && rm x'", "rm x"],
		["find . -name x -exec rm -f {} \\;", "rm -f {}"],
		['"r"m x', "rm x"],
		["\\rm x", "rm x"],
		["/bin/rm x", "rm x"],
	])("%j is checked as %j", (text, form) => {
		const analysis = analyzeCommand(text);
		expect(analysis.opaque).toBeUndefined();
		expect(analysis.forms.flat()).toContain(form);
	});

	it.each([
		["case $x in a) rm x;; esac", "case statement"],
		["coproc rm x", "command runner"],
		["f() { rm x; }; f", "function definition"],
		["function f { rm x; }", "function definition"],
		["x=rm; $x f", "expanded command name"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
		["${x:-rm} f", "parameter expansion operator"],
		["$(printf rm) f", "command substitution"],
		["r$()m f", "command substitution"],
		["$'\\x72m' f", "expanded command name"],
		["/bin/r? f", "glob in the command name"],
		["{rm,f}", "unrecognised syntax"],
		['eval "$cmd"', "eval"],
		["printf 'rm f' | sh", "shell reading its input"],
		["sh <<<'rm f'", "shell reading its input"],
		["bash -s < script", "shell reading its input"],
		["bash <(curl x)", "process substitution"],
		["source /dev/stdin", "sourced code"],
		[". ./venv/bin/activate", "sourced code"],
		["eval 'rm x'", "eval"],
		["exec -a name rm x", "eval"],
		["trap 'rm x' EXIT", "code run later"],
		['git commit -m "$(cat msg)"', "command substitution"],
		["for f in *.ts; do echo $f; done", "loop"],
		['bash -c "$x"', "script from a variable"],
		["python3 -c 'import os'", "interpreter with inline code"],
		["node -e 'x'", "interpreter with inline code"],
		["perl -ne 'print'", "interpreter with inline code"],
		["awk 'BEGIN { system(\"rm f\") }'", "interpreter with inline code"],
		["echo rm f | xargs -I% sh -c %", "command from input"],
		["printf 'rm\\nf' | xargs env", "command from input"],
		["find . -exec {} \\;", "command runner"],
		["parallel rm ::: a", "command runner"],
		["strace --mystery rm f", "unknown wrapper option"],
		["sudo -s", "shell reading its input"],
		["printf 'import os' | python3 -u", "shell reading its input"],
		["bash -c", "shell reading its input"],
		["printf 'rm f' | bash -v", "shell reading its input"],
		["chroot /", "shell reading its input"],
		["BASH_ENV=/tmp/x bash script.sh", "code in a variable"],
		// Variables judged by what they change: where programs, configuration and shells are found.
		["HOME=. git status", "code in a variable"],
		["XDG_CONFIG_HOME=cfg git status", "code in a variable"],
		["PATH=./bin:$PATH ls", "code in a variable"],
		['export PATH="$PWD/node_modules/.bin:$PATH"', "code in a variable"],
		["SHELL=./s flock f -c true", "code in a variable"],
		["CC='rm x;' make x", "code in a variable"],
		["GCONV_PATH=. iconv -f x", "code in a variable"],
		["JAVA_TOOL_OPTIONS=-javaagent:a.jar java -jar x.jar", "code in a variable"],
		["PYTEST_ADDOPTS='-p x' pytest", "code in a variable"],
		["read HOME", "code in a variable"],
		["printf -v PATH %s .", "code in a variable"],
		["env XDG_CONFIG_HOME=. git status", "code in a variable"],
		['export "BASH_ENV=x"', "code in a variable"],
		["declare -x 'LD_PRELOAD=x.so'", "code in a variable"],
		["typeset 'PAGER'=x", "code in a variable"],
		["git --git-dir=g status", "command runner"],
		["git --bare log", "command runner"],
		["git clone -u 'x; git-upload-pack' . d", "command runner"],
		["git clone --conf core.fsmonitor=x . d", "command runner"],
		["git init --temp=t d", "command runner"],
		["timeout {5,rm} x", "unknown wrapper option"],
		["sudo -u {root,rm} x", "unknown wrapper option"],
		["find o {-delete,}", "command runner"],
		["find . -fprin[t] x", "command runner"],
		["rg --pre rm x f", "command runner"],
		["compgen -W '$(rm f)' x", "code run later"],
		["rg --hostname-bin ./h x", "command runner"],
		["printf '!rm f' | ed -s f", "command runner"],
		["vim -n f", "command runner"],
		["sqlite3 db '.shell rm f'", "command runner"],
		["zip -TT 'rm f' z.zip f", "command runner"],
		["alias r=rm", "code run later"],
	])("%j is opaque: %s", (text, construct) => {
		expect(analyzeCommand(text).opaque?.construct).toBe(construct);
	});

	it.each([
		"npm run test -- --grep 'a b'",
		"[ -f x ] && [[ -d y ]]",
		"ls *.ts | wc -l",
		"echo $HOME > /dev/null",
		"node script.js",
		"python3 -m pytest -q",
		"bash script.sh",
		"sh -c 'echo fine'",
		"awk '{print $1}' file",
		"xargs",
		"cd src && make",
		"env",
		"node --version",
		"bash --version",
		"node --test",
		// Everyday assignments stay plain: their names are data to the programs that read them.
		"FOO=1 npm test",
		"CI=true npx vitest run",
		"NODE_ENV=test node x.js",
		"LANG=C LC_ALL=C sort f",
		"RUST_LOG=debug GOOS=linux CGO_ENABLED=0 TZ=UTC PYTHONUNBUFFERED=1 make",
		"export DEBUG=1; npm start",
		"git --no-pager log --oneline",
		"git clone --depth 1 https://example.invalid/r.git",
		"git init --bare g",
		"find . -name *.ts -o -name x*",
		"timeout 5s rm *.txt",
		"make PREFIX=~/.local install",
		"rg -n --hidden -g '*.ts' TODO src",
		"zip -r out.zip src",
	])("%j is readable", (text) => {
		expect(analyzeCommand(text).opaque).toBeUndefined();
	});

	it("takes the folders git clone, init and worktree add make for written files", () => {
		const targets = (text: string) => analyzeCommand(text).writes.map((write) => [write.word.value, write.via]);
		expect(targets("git clone --depth 1 -b main . /tmp/out")).toEqual([["/tmp/out", "git clone"]]);
		expect(targets("git init -q --separate-git-dir=/tmp/g d")).toEqual([
			["/tmp/g", "git init --separate-git-dir"],
			["d", "git init"],
		]);
		expect(targets("git worktree add -b feat ../wt")).toEqual([["../wt", "git worktree"]]);
		expect(targets("git clone https://example.invalid/r.git")).toEqual([]);
	});

	it("takes the targets of cp, ln, install and the files rm, truncate, chmod… change, and every operand of mv, for written files", () => {
		const targets = (text: string) => analyzeCommand(text).writes.map((write) => write.word.value);
		expect(targets("cp -r src .git/config")).toEqual([".git/config"]);
		expect(targets("cp -t /tmp a b")).toEqual(["/tmp"]);
		expect(targets("ln -s /bin/rm ls")).toEqual(["ls"]);
		expect(targets("install -m 755 x bin/x")).toEqual(["bin/x"]);
		expect(targets("mv /elsewhere/a b")).toEqual(["/elsewhere/a", "b"]);
		expect(targets("cp a")).toEqual([]);
		expect(targets("rm -rf -- /elsewhere/x")).toEqual(["/elsewhere/x"]);
		expect(targets("truncate -s 0 f")).toEqual(["f"]);
		expect(targets("chmod -w f")).toEqual(["f"]);
		expect(targets("chown -R u:g d")).toEqual(["d"]);
	});

	it("collects written files, also inside bash -c scripts, and cd targets", () => {
		const analysis = analyzeCommand("cd /tmp && echo a > f; bash -c 'echo b >> g' | tee -a h i; make 2>&1");
		expect(analysis.writes.map((write) => [write.word.value, write.via])).toEqual([
			["f", ">"],
			["g", ">"],
			["h", "tee"],
			["i", "tee"],
		]);
		expect(analysis.directoryChanges).toEqual([{ path: "/tmp" }]);
		expect(analyzeCommand('cd "$d"').directoryChanges).toEqual([{}]);
	});
});

describe("RuleSet with commands the parser cannot reduce", () => {
	it("an opaque command matches every deny and ask rule of the tool, naming the construct", () => {
		const denying = rules(["bash"], [], ["bash(rm:*)"]);
		const evaluation = denying.evaluate("bash", command("x=rm; $x f"));
		expect(evaluation.behavior).toBe("deny");
		expect(evaluation.rule?.text).toBe("bash(rm:*)");
		expect(evaluation.construct?.construct).toBe("expanded command name");
		const asking = rules(["bash"], ["bash(git push:*)"]);
		expect(asking.evaluate("bash", command("printf x | sh")).behavior).toBe("ask");
		// A plain match names no construct.
		expect(denying.evaluate("bash", command("sudo rm f")).construct).toBeUndefined();
	});

	it("an opaque command is left to allow rules and the mode when there is no deny or ask rule", () => {
		expect(rules(["bash"]).evaluate("bash", command("x=rm; $x f")).behavior).toBe("allow");
		expect(rules(["bash(echo:*)"]).evaluate("bash", command("x=echo; $x f")).behavior).toBeUndefined();
		// Deny rules of other tools do not make a command opaque-denied.
		expect(rules(["bash"], [], ["read(.env)"]).evaluate("bash", command("$x f")).behavior).toBe("allow");
	});

	it("allow rules name a redirection only when they spell its target", () => {
		const set = rules(["bash(echo:*)", "bash(make > build.log)"]);
		expect(set.allowRuleNaming("bash", "make > build.log", "build.log")?.text).toBe("bash(make > build.log)");
		expect(set.allowRuleNaming("bash", "echo x > /tmp/y", "/tmp/y")).toBeUndefined();
	});
});

describe("rules are checked when loaded", () => {
	it.each([
		["bash(npm test && npm run build)", /never match.*several/],
		["bash(time make)", /never match.*reserved words/],
		["bash(echo x # note)", /never match/],
		["read(../secret)", /never match.*'\.\.'/],
	])("%j is refused", (text, message) => {
		expect(() => parseRule(text, "deny", "f")).toThrow(RuleSyntaxError);
		expect(() => parseRule(text, "deny", "f")).toThrow(message);
	});

	it.each([
		"bash(git commit -m 'a && b')",
		"bash(echo $(date))",
		"bash(npm run test:*)",
		"edit(src/**)",
		"bash(echo (a))",
	])("%j is accepted", (text) => {
		expect(() => parseRule(text, "allow", "f")).not.toThrow();
	});

	it("an unknown tool names the rule, where it came from, and the closest tool", () => {
		const rule = parseRule("bsah(rm:*)", "deny", "command line");
		const error = (() => {
			try {
				checkRuleToolNames([rule]);
			} catch (caught) {
				return caught;
			}
			return undefined;
		})();
		expect(error).toBeInstanceOf(UnknownToolRuleError);
		expect(error).toBeInstanceOf(RuleSyntaxError);
		expect((error as UnknownToolRuleError).suggestion).toBe("bash");
		expect((error as Error).message).toMatch(/"bsah\(rm:\*\)".*--deny flag.*Did you mean "bash"/s);
		const fromFile = parseRule("raed(.env)", "deny", "/p/.toolbelt/settings.json");
		expect(() => checkRuleToolNames([fromFile])).toThrow(/\/p\/\.toolbelt\/settings\.json.*Did you mean "read"/s);
	});

	it("built-ins, the coming tools, MCP tools and the embedder's tools are known", () => {
		const names = ["bash", "powershell", "apply_patch", "bash_kill", "github__create_issue", "mcp__fs__read", "deploy"];
		expect(() =>
			checkRuleToolNames(
				names.map((name) => parseRule(name, "allow", "f")),
				["deploy"],
			),
		).not.toThrow();
		expect(() => checkRuleToolNames([parseRule("github__create_issue(x)", "allow", "f")])).toThrow(/never match/);
	});
});
