import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cleanEnv } from "../cli/helpers/cli-binary.js";
import { handOver, type TestUser } from "./test-users.js";

/** A workspace and a home folder for one test user, and the environment CLI runs there get. */
export interface UserWorkspace {
	workspace: string;
	home: string;
	env: Record<string, string>;
}

/**
 * Under `root`: a workspace holding `a.txt` and a home folder, both handed over to `user`, with a
 * clean environment whose HOME is that folder (plus `env`).
 */
export async function userWorkspace(
	root: string,
	user: TestUser,
	env: Record<string, string> = {},
): Promise<UserWorkspace> {
	const workspace = join(root, "workspace");
	const home = join(root, "home");
	await mkdir(workspace);
	await mkdir(home);
	await writeFile(join(workspace, "a.txt"), "one\n");
	await handOver(root, user);
	return { workspace, home, env: cleanEnv({ HOME: home, ...env }) };
}
