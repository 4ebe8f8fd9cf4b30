import { execFileSync } from "node:child_process";
import { findTrustedProgram, requireTrustedProgram } from "../programs/trusted-programs.js";

/** The `unshare` invocation that runs a command as the first process of a new PID namespace. */
const UNSHARE_ARGS = ["--pid", "--fork", "--kill-child"] as const;

let available: boolean | undefined;

/**
 * True when this process may run commands in a PID namespace of their own (Linux, as root or
 * where the kernel lets this user make one, with util-linux `unshare --kill-child`). Probed once:
 * the answer does not change while toolbelt runs.
 *
 * Why it matters: when the first process of a PID namespace ends, the kernel kills every other
 * process in it before that first process has fully exited — `setsid`, double forks and a
 * cleared environment included — and nothing inside can leave the namespace. Unlike a cgroup,
 * joining one costs no RCU grace period, so a short command (a hook) pays about one extra fork.
 */
export function pidNamespaceAvailable(): boolean {
	if (available !== undefined) return available;
	available = false;
	if (process.platform !== "linux" || process.env.TOOLBELT_SHELL_CONTAINMENT === "process-group") return available;
	try {
		const unshare = findTrustedProgram("unshare");
		if (unshare === undefined) return available;
		execFileSync(unshare, [...UNSHARE_ARGS, "/bin/sh", "-c", "exit 0"], { stdio: "ignore", timeout: 5000 });
		available = true;
	} catch {
		// Not permitted here (no root, no user namespaces) or no util-linux: other mechanisms apply.
	}
	return available;
}

/**
 * The program and arguments that run `file args` as the first process of a new PID namespace.
 * `--kill-child` makes that process die with `unshare` itself, so killing `unshare` (the leader
 * of its process group) ends the whole namespace.
 */
export function inPidNamespace(file: string, args: readonly string[]): { file: string; args: string[] } {
	return {
		file: requireTrustedProgram("unshare", "run a process in a PID namespace"),
		args: [...UNSHARE_ARGS, file, ...args],
	};
}
