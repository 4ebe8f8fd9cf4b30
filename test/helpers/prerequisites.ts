import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox } from "../../src/safety/sandbox.js";
import { cgroupsAvailable } from "../../src/workspace/local/process/cgroup.js";

/**
 * Passes on why a test cannot run here, or undefined when it can. Under CI (`CI` set, as
 * `.ci/run` does after installing every prerequisite) a missing one is a failure, not a quiet
 * skip: a broken install step must not turn the tests that need it into passes.
 */
export function requiredInCi(what: string, reason: string | undefined): string | undefined {
	if (reason !== undefined && process.env.CI) throw new Error(`CI provides ${what}, but here: ${reason}`);
	if (reason !== undefined) console.warn(`Skipping tests that need ${what}: ${reason}`);
	return reason;
}

/** Why the bubblewrap sandbox cannot run on this machine, or undefined when it can (see `requiredInCi`). */
export async function sandboxUnavailableReason(): Promise<string | undefined> {
	let reason: string | undefined;
	// A folder of its own: the sandbox watches its roots' trees, and the shared temp dir can be huge.
	const root = await mkdtemp(join(tmpdir(), "toolbelt-sandbox-probe-"));
	try {
		await createSandbox({ writableRoots: [root] });
	} catch (error) {
		reason = (error as Error).message;
	} finally {
		await rm(root, { recursive: true, force: true });
	}
	return requiredInCi("the bubblewrap sandbox", reason);
}

/**
 * Why commands cannot run in cgroups here, or undefined when they can: standby shells and the
 * cgroup containment exist only there. Required in CI on Linux (see `requiredInCi`).
 */
export function commandCgroupsUnavailableReason(): string | undefined {
	if (process.platform !== "linux") return "not Linux";
	return requiredInCi(
		"a writable cgroup v2 hierarchy",
		cgroupsAvailable() ? undefined : "commands cannot get cgroups here",
	);
}
