import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach } from "vitest";
import { ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { handOver, type TestUser, userPrefix } from "../helpers/test-users.js";

const run = promisify(execFile);

/**
 * A fresh folder for each test, under /var/tmp rather than /tmp: the sandbox's /tmp is its own, so
 * a link or a home there would lead nowhere inside. Removed after the test. Call at a file's top.
 */
export function useVarTmpBase(prefix: string): () => string {
	let base = "";
	beforeEach(async () => {
		base = await mkdtemp(join("/var/tmp", prefix));
	});
	afterEach(async () => {
		await rm(base, { recursive: true, force: true });
	});
	return () => base;
}

/**
 * Runs `fixtures/<name>.mjs` (it drives the built CLI's library) with Node as `user`, `base` handed
 * to that user and given as its first argument and its HOME, and parses the JSON it prints.
 */
export async function runFixtureAs<T>(user: TestUser, name: string, base: string, args: string[] = []): Promise<T> {
	ensureBuiltCli();
	await handOver(base, user);
	const script = fileURLToPath(new URL(`./fixtures/${name}.mjs`, import.meta.url));
	const [program = process.execPath, ...prefix] = [...userPrefix(user), process.execPath];
	const { stdout } = await run(program, [...prefix, script, base, ...args], {
		timeout: 90_000,
		env: { ...process.env, HOME: base },
	});
	return JSON.parse(stdout) as T;
}
