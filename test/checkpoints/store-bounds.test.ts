// The checkpoint store's log is bounded like its content: each append reads it whole, and a log
// past what Node reads into a string could not be read at all — undo would then have said
// "nothing to undo". A log that exists but cannot be read is an error, never an empty history.
import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Checkpoint, CheckpointStore, checkpointDirOf } from "../../src/checkpoints/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

const dir = useTempDir();

/** A checkpoint of one created file under a deep name, so each line is about 1 KB. */
function checkpoint(index: number): Checkpoint {
	const path = `/work/${"deep/".repeat(180)}f${index}.txt`;
	return {
		id: `id-${index}`,
		turn: `turn-${index}`,
		time: Date.now(),
		tool: "write",
		files: [{ path, before: { kind: "absent" }, after: { kind: "absent" } }],
	};
}

describe("the checkpoint log", () => {
	it("stays within its bound: the oldest checkpoints go first, the newest stay", async () => {
		const options = { workspace: "/work", stateDir: dir(), maxLogBytes: 20_000 };
		const store = await CheckpointStore.open(options);
		for (let index = 0; index < 60; index++) await store.append(checkpoint(index));
		const kept = await store.list();
		const log = await stat(join(checkpointDirOf(options), "log.jsonl"));
		expect(log.size).toBeLessThanOrEqual(20_000);
		expect(kept.length).toBeGreaterThan(10);
		expect(kept.length).toBeLessThan(60);
		expect(kept.at(-1)?.id).toBe("id-59");
		expect(kept.map((entry) => entry.id)).toEqual(
			Array.from({ length: kept.length }, (_, offset) => `id-${60 - kept.length + offset}`),
		);
	});

	it("that exists but cannot be read is reported, not taken for an empty history", async () => {
		const options = { workspace: "/work", stateDir: dir() };
		const store = await CheckpointStore.open(options);
		await store.append(checkpoint(1));
		const logPath = join(checkpointDirOf(options), "log.jsonl");
		await rm(logPath);
		await mkdir(logPath);
		await expect(store.list()).rejects.toThrow(/checkpoint log .* could not be read/);
	});

	it("not made yet is an empty history", async () => {
		const store = await CheckpointStore.open({ workspace: "/work", stateDir: dir() });
		expect(await store.list()).toEqual([]);
	});
});
