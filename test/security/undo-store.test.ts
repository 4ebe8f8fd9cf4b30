// `toolbelt undo` writes what the checkpoint store's log says. The store must be the user's own
// private folder (not inside the workspace, not another user's, not where an empty
// XDG_STATE_HOME would put it), and even then undo writes only inside the workspace the log was
// recorded for: an entry naming ~/.bash_aliases would persist code that runs at the next login.
import { createHash, randomUUID } from "node:crypto";
import { chmod, lchown, lstat, mkdir, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointDirOf } from "../../src/checkpoints/index.js";
import { CliProcesses } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers, unprivilegedIdentity } from "../helpers/test-users.js";
import { type UserWorkspace, userWorkspace } from "../helpers/user-workspace.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const PAYLOAD = "alias ls='touch /tmp/toolbelt-pwned'\n";

const sha256 = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");

function toolbelt(place: UserWorkspace, user: TestUser, ...args: string[]) {
	return cli.run(args, { cwd: place.workspace, env: place.env, user });
}

/**
 * Writes into `storeDir` (as a sandboxed command or another user could) a checkpoint whose
 * before-image of `path` is `content` and whose after-image is what `path` holds now, so an undo
 * that trusts it writes `content` there.
 */
async function plantEntry(storeDir: string, path: string, content: string): Promise<string> {
	await mkdir(join(storeDir, "blobs"), { recursive: true });
	const blob = sha256(content);
	await writeFile(join(storeDir, "blobs", blob), content);
	const now = await readFile(path).catch(() => undefined);
	const after = now ? { kind: "file", blob: sha256(now), mode: 0o644, size: now.length } : { kind: "absent" };
	const entry = {
		id: randomUUID(),
		turn: randomUUID(),
		time: Date.now(),
		tool: "write",
		files: [{ path, before: { kind: "file", blob, mode: 0o644, size: content.length }, after }],
	};
	await writeFile(join(storeDir, "log.jsonl"), `${JSON.stringify(entry)}\n`, { flag: "a" });
	return blob;
}

async function storeOf(place: UserWorkspace, stateHome: string): Promise<string> {
	return checkpointDirOf({ workspace: await realpath(place.workspace), stateDir: stateHome });
}

describe.each(testUsers())("the checkpoint store, as %s", (user) => {
	it("an appended log entry naming ~/.bash_aliases is refused and listed; the rest is undone; its content is not kept", async () => {
		const place = await userWorkspace(tempDir(), user);
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(write.code, write.stderr).toBe(0);
		const store = await storeOf(place, join(place.home, ".local", "state"));
		const aliases = join(place.home, ".bash_aliases");
		const blob = await plantEntry(store, aliases, PAYLOAD);
		await handOver(tempDir(), user);

		const undo = await toolbelt(place, user, "undo", "--turns", "2");
		await expect(lstat(aliases)).rejects.toThrow();
		expect(undo.code).toBe(1);
		expect(undo.stderr).toContain(aliases);
		expect(await readFile(join(place.workspace, "a.txt"), "utf8")).toBe("one\n");
		expect(await readdir(join(store, "blobs"))).not.toContain(blob);
	});

	it("a log entry that climbs out with '..' is refused too", async () => {
		const place = await userWorkspace(tempDir(), user);
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(write.code, write.stderr).toBe(0);
		const store = await storeOf(place, join(place.home, ".local", "state"));
		await plantEntry(store, `${place.workspace}/../home/.bash_aliases`, PAYLOAD);
		await handOver(tempDir(), user);

		await toolbelt(place, user, "undo");
		await expect(lstat(join(place.home, ".bash_aliases"))).rejects.toThrow();
	});

	it("a store inside the workspace (XDG_STATE_HOME there) is refused: a planted log is never followed", async () => {
		const place = await userWorkspace(tempDir(), user);
		place.env.XDG_STATE_HOME = join(place.workspace, ".state");
		const store = await storeOf(place, place.env.XDG_STATE_HOME);
		const aliases = join(place.home, ".bash_aliases");
		await plantEntry(store, aliases, PAYLOAD);
		await handOver(tempDir(), user);

		const undo = await toolbelt(place, user, "undo");
		await expect(lstat(aliases)).rejects.toThrow();
		expect(undo.code).toBe(1);
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "b.txt", content: "bee\n" }));
		expect(write.code).toBe(0);
		// Nothing of the session's was recorded where the workspace's commands could rewrite it.
		expect((await readFile(join(store, "log.jsonl"), "utf8")).split("\n").filter(Boolean)).toHaveLength(1);
	});

	it("an empty XDG_STATE_HOME counts as unset: the store is not made in the working folder", async () => {
		const place = await userWorkspace(tempDir(), user, { XDG_STATE_HOME: "" });
		// Where the store would land if "" were taken as a base: relative to the working folder.
		const relative = join(place.workspace, await storeOf(place, ""));
		const aliases = join(place.home, ".bash_aliases");
		await plantEntry(relative, aliases, PAYLOAD);
		await handOver(tempDir(), user);

		await toolbelt(place, user, "undo");
		await expect(lstat(aliases)).rejects.toThrow();
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(write.code).toBe(0);
		const undo = await toolbelt(place, user, "undo");
		expect(undo.code, undo.stderr).toBe(0);
		expect(await readFile(join(place.workspace, "a.txt"), "utf8")).toBe("one\n");
		expect(await readdir(join(place.home, ".local", "state", "toolbelt", "checkpoints"))).toHaveLength(1);
	});

	it("a refused write keeps no content in the store", async () => {
		const place = await userWorkspace(tempDir(), user);
		const store = await storeOf(place, join(place.home, ".local", "state"));
		await chmod(join(place.workspace, "a.txt"), 0o444);
		const write = await toolbelt(place, user, "tool", "write", JSON.stringify({ path: "a.txt", content: "two\n" }));
		expect(write.code).not.toBe(0);
		expect(await readdir(join(store, "blobs")).catch(() => [])).toEqual([]);
	});
});

/** Each pair: who pre-creates the state folder and plants a log in it, and who then runs undo. */
const otherUserPairs: [TestUser, TestUser][] =
	testUsers().includes("unprivileged") && process.getuid?.() === 0
		? [
				["unprivileged", "root"],
				["root", "unprivileged"],
			]
		: [];

describe.each(otherUserPairs)("a store folder made by %s, used by %s", (maker, runner) => {
	it("is refused, never used: the planted log changes no file", async () => {
		const place = await userWorkspace(tempDir(), runner);
		await chmod(tempDir(), 0o755);
		const shared = join(tempDir(), "shared-state");
		place.env.XDG_STATE_HOME = shared;
		const store = await storeOf(place, shared);
		await plantEntry(store, join(place.workspace, "a.txt"), "planted by another user\n");
		// The maker's folder: theirs, and open enough that the runner could use it before the fix.
		for (let folder = store; folder !== tempDir(); folder = join(folder, "..")) {
			await chmod(folder, 0o777);
			if (maker === "unprivileged") await lchown(folder, unprivilegedIdentity.uid, unprivilegedIdentity.gid);
		}
		const blobs = (await readdir(join(store, "blobs"))).map((name) => join("blobs", name));
		const modes: [string, number][] = [
			["blobs", 0o777],
			["log.jsonl", 0o666],
			...blobs.map((blob): [string, number] => [blob, 0o666]),
		];
		for (const [name, mode] of modes) {
			await chmod(join(store, name), mode);
			if (maker === "unprivileged") await lchown(join(store, name), unprivilegedIdentity.uid, unprivilegedIdentity.gid);
		}

		const undo = await toolbelt(place, runner, "undo");
		expect(undo.code).toBe(1);
		expect(await readFile(join(place.workspace, "a.txt"), "utf8")).toBe("one\n");
	});
});
