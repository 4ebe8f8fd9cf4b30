import { execFile } from "node:child_process";

/** What a probe runs: the command line up to the command. */
export interface ProbeLaunch {
	file: string;
	args: string[];
}

/** Exit status of the probe when a capability is left inside. */
const capabilitiesLeftStatus = 97;

// Builtins only (no program to start): the sets that must be empty inside for the sandbox to hold.
const capabilityCheck = `while read -r name value; do
case $name in CapPrm:|CapEff:|CapBnd:|CapAmb:) [ "$value" = 0000000000000000 ] || { echo "capabilities left inside the sandbox: $name $value" >&2; exit ${capabilitiesLeftStatus}; };; esac
done < /proc/self/status`;

/**
 * Runs `/bin/sh` in a sandbox launched by `launch` and checks that it holds no capability (none
 * permitted, effective, in its bounding set or ambient). Resolves to undefined when it does, else to
 * what went wrong (bwrap's message, or the capabilities left).
 */
export function probeSandbox(launch: ProbeLaunch): Promise<string | undefined> {
	return new Promise((resolvePromise) => {
		execFile(
			launch.file,
			[...launch.args, "/bin/sh", "-c", capabilityCheck],
			{ timeout: 10_000 },
			(error, _stdout, stderr) => {
				resolvePromise(error ? stderr.trim() || error.message : undefined);
			},
		);
	});
}

/** True when a probe failed only because this bwrap predates `--disable-userns` (0.8). */
export function lacksDisableUserns(failure: string): boolean {
	return /disable-userns/.test(failure) && /unknown option|unrecognized/i.test(failure);
}

/** The refusal for a sandbox whose probe failed: what failed, why it matters, what to do. */
export function explainProbeFailure(failure: string): string {
	if (/capabilities left inside/.test(failure)) {
		return (
			`The shell sandbox was requested but bubblewrap left capabilities to the command (${failure}). ` +
			"With them a command could unmount or remount what the sandbox protects, so commands are not run. Use a bwrap that supports --unshare-user and --cap-drop."
		);
	}
	if (/seccomp/i.test(failure)) {
		return (
			`The shell sandbox was requested but bubblewrap cannot install its seccomp filter here: ${failure}. ` +
			"The filter keeps sandboxed commands from making namespaces, mounting, kernel keyrings, tracing processes and (without the network) host Unix sockets; it needs a bwrap with --seccomp and a kernel with seccomp. Commands are not run unsandboxed."
		);
	}
	return (
		`The shell sandbox was requested but bubblewrap cannot run here: ${failure}. ` +
		"It runs every command in a user namespace of its own without capabilities (also as root), which needs user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces above 0; inside a container, one allowed to create them). Commands are not run unsandboxed."
	);
}
