import { spawnSync } from "node:child_process";
import { lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { requiredInCi } from "./prerequisites.js";

/**
 * Who a security test acts as. Root is the common case (CI runners, dev containers); an
 * unprivileged user is the other half: a protection that holds for only one of them does not hold.
 */
export type TestUser = "root" | "unprivileged";

/** The unprivileged identity the tests switch to from root: `nobody`. */
export const unprivilegedIdentity = { uid: 65534, gid: 65534 } as const;

/**
 * The command prefix that runs a program as `user`: empty for the current user; for
 * `unprivileged`, `setpriv` to `nobody` with no supplementary groups and no capabilities at all
 * (as `runuser` would leave them), so the program starts as a plain user would start it.
 */
export function userPrefix(user: TestUser): string[] {
	if (user === "root" || process.getuid?.() !== 0) return [];
	const { uid, gid } = unprivilegedIdentity;
	return [
		"setpriv",
		`--reuid=${uid}`,
		`--regid=${gid}`,
		"--clear-groups",
		"--inh-caps=-all",
		"--bounding-set=-all",
		"--",
	];
}

let unprivilegedReason: string | undefined | null = null;

/** Why the tests cannot switch to an unprivileged user here, or undefined when they can. */
export function unprivilegedUnavailableReason(): string | undefined {
	if (unprivilegedReason !== null) return unprivilegedReason;
	if (process.getuid?.() !== 0) {
		unprivilegedReason = "the tests do not run as root, so they already run as an unprivileged user";
		return unprivilegedReason;
	}
	const probe = spawnSync(
		userPrefix("unprivileged")[0] ?? "setpriv",
		[...userPrefix("unprivileged").slice(1), process.execPath, "-e", "0"],
		{
			encoding: "utf8",
			timeout: 10_000,
		},
	);
	unprivilegedReason =
		probe.error || probe.status !== 0
			? `setpriv could not start node as uid ${unprivilegedIdentity.uid} (${probe.error?.message ?? probe.stderr.trim()})`
			: undefined;
	return unprivilegedReason;
}

/**
 * The users a security test runs as here: as root, both root and the unprivileged user (the
 * latter required under CI); as a plain user, that user alone (reported as "unprivileged").
 * Use with `describe.each(testUsers())`.
 */
export function testUsers(): TestUser[] {
	if (process.getuid?.() !== 0) return ["unprivileged"];
	const reason = requiredInCi("an unprivileged user (setpriv)", unprivilegedUnavailableReason());
	return reason === undefined ? ["root", "unprivileged"] : ["root"];
}

/**
 * Hands `path` and everything below it to `user`, so files a test prepared as root belong to
 * the user who then works on them (a no-op for root or when not running as root). Links are
 * chowned themselves, never followed.
 */
export async function handOver(path: string, user: TestUser): Promise<void> {
	if (user === "root" || process.getuid?.() !== 0) return;
	const { uid, gid } = unprivilegedIdentity;
	const walk = async (current: string): Promise<void> => {
		const info = await lstat(current);
		await lchown(current, uid, gid);
		if (info.isDirectory()) for (const entry of await readdir(current)) await walk(join(current, entry));
	};
	await walk(path);
}
