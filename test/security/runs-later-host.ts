// The host side of the "runs later" red-team tests: a repository owned by the test's user, a
// sandboxed command through the built CLI as a user starts it, and the programs the user runs
// afterwards on the host (git, direnv, python…), each as that user.
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { handOver, type TestUser, userPrefix } from "../helpers/test-users.js";
import { gitIdentity } from "./git-identity.js";

/**
 * A command that writes `content` to `path` (appending, made executable) by a program the shell
 * policy cannot read, so the sandbox is what must stop it.
 */
export function plantCommand(path: string, content: string): string {
	const script =
		"const fs=require('fs');const [p,b]=process.argv.slice(1);fs.mkdirSync(require('path').dirname(p),{recursive:true});" +
		"fs.appendFileSync(p,Buffer.from(b,'base64'));fs.chmodSync(p,0o755)";
	return `node -e "${script}" ${path} ${Buffer.from(content).toString("base64")}`;
}

/**
 * The host of one test: `base()` is its folder (outside /tmp, which the sandbox replaces, so only
 * a process on the host can make `marker()`), `home()` the user's home inside it.
 */
export function runsLaterHost(user: TestUser, cli: CliProcesses, base: () => string) {
	const home = () => join(base(), "home");
	const marker = () => join(base(), "ran-on-host");
	const env = (extra: NodeJS.ProcessEnv = {}) => cleanEnv({ HOME: home(), ...gitIdentity, ...extra });

	/** A program on the host, as the user runs it after the session. */
	function host(cwd: string, program: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
		const [file, ...prefix] = [...userPrefix(user), program];
		return spawnSync(file ?? program, [...prefix, ...args], {
			cwd,
			env: env(extra),
			encoding: "utf8",
			timeout: 60_000,
		});
	}

	const git = (cwd: string, ...args: string[]) => host(cwd, "git", args);

	/** A committed repository at `path`, owned by the user. */
	async function repository(path: string): Promise<string> {
		await mkdir(path, { recursive: true });
		await mkdir(home(), { recursive: true });
		await writeFile(join(path, "file.txt"), "content\n");
		await handOver(base(), user);
		for (const args of [
			["init", "-q"],
			["add", "-A"],
			["commit", "-q", "-m", "initial"],
		]) {
			const result = git(path, ...args);
			if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
		}
		return path;
	}

	/** `command` run by the bash tool in the sandbox, from `cwd`. */
	function sandboxed(cwd: string, command: string) {
		return cli.run(["tool", "bash", JSON.stringify({ command }), "--sandbox"], { cwd, env: env(), user });
	}

	return { home, marker, env, host, git, repository, sandboxed };
}
