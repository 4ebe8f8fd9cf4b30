// A sandboxed command can turn a file the agent wrote into a sparse file of a terabyte in no time
// and no disk (`truncate -s 1T`). Checkpoints must not read it: hashing it whole took hours, so
// the user's `toolbelt undo` (as root, typically) hung on a file that only needs its size to be
// told apart, and every later write or edit of it hung the session in the checkpoint's capture.
// A file larger than the store keeps is never read, by undo or by a capture; nor, by undo, a file
// whose size neither its before nor its after state has: one just under the store's bound in each
// of hundreds of written names cost undo as much hashing as a terabyte. And content the store did
// not keep does not count toward its bound: one write over a sparse terabyte evicted every older
// checkpoint, so the model could take the user's undo of earlier turns away at no cost.
import { readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { type UserWorkspace, userWorkspace } from "../helpers/user-workspace.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

/** A sparse terabyte: every file system the tests run on holds one, in no blocks. */
const HUGE = 2 ** 40;
/** The most the checkpoint store keeps of one file (its default bound): the largest file a checkpoint hashes. */
const STORE_BOUND = 256 * 2 ** 20;
/** Written files inflated to `STORE_BOUND`: minutes of hashing on any machine the tests run on. */
const MANY = 300;
/** Far below what reading a terabyte takes (minutes at best), far above a CLI start on a loaded machine. */
const PATIENCE_MS = 25_000;

/** Runs the CLI in the workspace, killed after `PATIENCE_MS`: a run that reads the huge file ends with a signal. */
async function toolbelt(place: UserWorkspace, user: TestUser, ...args: string[]) {
	const { child, done } = cli.start(args, { cwd: place.workspace, env: place.env, user });
	const timer = setTimeout(() => child.kill("SIGKILL"), PATIENCE_MS);
	try {
		return await done;
	} finally {
		clearTimeout(timer);
	}
}

/** Makes `name` a sparse file of `HUGE` bytes, as a sandboxed `truncate -s 1T` would. */
async function inflate(place: UserWorkspace, user: TestUser, name: string): Promise<void> {
	await truncate(join(place.workspace, name), HUGE);
	await handOver(place.workspace, user);
}

describe.each(testUsers())("checkpoints of a file made a sparse terabyte, as %s", (user) => {
	it("undo reports it changed since without reading it, and --force puts the old content back", async () => {
		const place = await userWorkspace(tempDir(), user);
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(write.code, write.stderr).toBe(0);
		await inflate(place, user, "a.txt");

		const undo = await toolbelt(place, user, "undo");
		expect(undo.signal, "undo read the sparse file").toBeNull();
		expect(undo.code, undo.stderr).toBe(1);
		expect(undo.stderr).toMatch(/changed after the checkpoint[\s\S]*a\.txt/);
		expect((await stat(join(place.workspace, "a.txt"))).size).toBe(HUGE);

		const forced = await toolbelt(place, user, "undo", "--force");
		expect(forced.signal, "undo --force read the sparse file").toBeNull();
		expect(forced.code, forced.stderr).toBe(0);
		expect(await readFile(join(place.workspace, "a.txt"), "utf8")).toBe("one\n");
	}, 90_000);

	it("a write over it is not held up by the checkpoint, and undo says its content was not kept", async () => {
		const place = await userWorkspace(tempDir(), user);
		await inflate(place, user, "a.txt");
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(write.signal, "the checkpoint's capture read the sparse file").toBeNull();
		expect(write.code, write.stderr).toBe(0);

		const undo = await toolbelt(place, user, "undo");
		expect(undo.signal, "undo read the sparse file").toBeNull();
		expect(undo.code, undo.stderr).toBe(1);
		expect(undo.stderr).toMatch(/a\.txt: its content before the call .* was not kept/);
		expect(await readFile(join(place.workspace, "a.txt"), "utf8")).toBe("two\n");
	}, 90_000);

	it("undo does not read hundreds of written files each inflated to the store's bound", async () => {
		const place = await userWorkspace(tempDir(), user);
		const names = Array.from({ length: MANY }, (_, index) => `file-${index}.txt`);
		const patch = ["*** Begin Patch", ...names.flatMap((name) => [`*** Add File: ${name}`, "+x"]), "*** End Patch"];
		const added = await toolbelt(place, user, "tool", "apply_patch", JSON.stringify({ patch: patch.join("\n") }));
		expect(added.code, added.stderr).toBe(0);
		for (const name of names) await truncate(join(place.workspace, name), STORE_BOUND);
		await handOver(place.workspace, user);

		const undo = await toolbelt(place, user, "undo");
		expect(undo.signal, "undo hashed the inflated files").toBeNull();
		expect(undo.code, undo.stderr).toBe(1);
		expect(undo.stderr).toMatch(/changed after the checkpoint[\s\S]*file-0\.txt/);
	}, 90_000);

	it("a write over it keeps the older turns' checkpoints: content not kept takes no room in the store", async () => {
		const place = await userWorkspace(tempDir(), user);
		const first = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(first.code, first.stderr).toBe(0);
		await writeFile(join(place.workspace, "big.bin"), "");
		await inflate(place, user, "big.bin");
		const second = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "big.bin", content: "x\n" }));
		expect(second.code, second.stderr).toBe(0);

		const undo = await toolbelt(place, user, "undo", "--turns", "2");
		expect(undo.stderr).toMatch(/big\.bin: its content before the call .* was not kept/);
		expect(await readFile(join(place.workspace, "a.txt"), "utf8")).toBe("one\n");
	}, 90_000);
});
