import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { pendingFileMutationQueues, withFileMutationQueue } from "../../src/engine/index.js";
import { canonicalPath } from "../../src/workspace/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("withFileMutationQueue", () => {
	const tempDir = useTempDir();

	it("serializes read-modify-write of one file, so no update is lost", async () => {
		const file = join(tempDir(), "counter.txt");
		await writeFile(file, "0");
		await Promise.all(
			Array.from({ length: 20 }, () =>
				withFileMutationQueue(file, async () => {
					const value = Number(await readFile(file, "utf8"));
					await pause(2);
					await writeFile(file, String(value + 1));
				}),
			),
		);
		expect(await readFile(file, "utf8")).toBe("20");
	});

	it("runs mutations of different files concurrently", async () => {
		// Each mutation waits until the other has begun: queued one after the other they would wait for ever.
		let release: () => void = () => {};
		const bothBegun = new Promise<void>((resolve) => {
			let begun = 0;
			release = () => {
				begun += 1;
				if (begun === 2) resolve();
			};
		});
		const mutation = async () => {
			release();
			await bothBegun;
		};
		const outcome = await Promise.race([
			Promise.all([
				withFileMutationQueue(join(tempDir(), "a"), mutation),
				withFileMutationQueue(join(tempDir(), "b"), mutation),
			]).then(() => "concurrent"),
			pause(5_000).then(() => "serialized"),
		]);
		expect(outcome).toBe("concurrent");
	});

	it("gives one key to a/f, ./a/../a/f, the absolute path and a path through a symlinked dir, even before f exists", async () => {
		const root = tempDir();
		await mkdir(join(root, "a"));
		await symlink(join(root, "a"), join(root, "link"));
		// Relative spellings resolve against the working folder, which stays the worker's (a shared worker's).
		const fromCwd = relative(process.cwd(), root);
		const keys = await Promise.all([
			canonicalPath(`${fromCwd}/a/f`),
			canonicalPath(`./${fromCwd}/a/../a/f`),
			canonicalPath(join(root, "a", "f")),
			canonicalPath(join(root, "link", "f")),
			canonicalPath(relative(process.cwd(), join(root, "link", "f"))),
		]);
		expect(new Set(keys).size).toBe(1);
		// The same holds for a file in a folder that does not exist yet.
		expect(await canonicalPath(`${fromCwd}/link/new/deep/f`)).toBe(
			await canonicalPath(join(root, "a", "new", "deep", "f")),
		);
	});

	it("serializes through different spellings of the same path", async () => {
		const root = tempDir();
		await mkdir(join(root, "a"));
		await symlink(join(root, "a"), join(root, "link"));
		let active = 0;
		let maxActive = 0;
		// The key is the workspace's real-path rule; the engine itself reads no disk.
		const mutate = (path: string) =>
			withFileMutationQueue(
				path,
				async () => {
					active++;
					maxActive = Math.max(maxActive, active);
					await pause(20);
					active--;
				},
				{ key: canonicalPath(path) },
			);
		await Promise.all([
			mutate(join(root, "a", "f")),
			mutate(join(root, "link", "f")),
			mutate(join(root, "a", "..", "a", "f")),
		]);
		expect(maxActive).toBe(1);
	});

	it("runs mutations of one file in call order, whatever spelling each call uses", async () => {
		const root = tempDir();
		await mkdir(join(root, "a", "b", "c"), { recursive: true });
		await symlink(join(root, "a"), join(root, "link"));
		// A missing file in a deep folder takes several failed look-ups; the short spelling takes one.
		const spellings = [
			join(root, "a", "b", "c", "missing", "deeper", "f"),
			join(root, "link", "b", "c", "missing", "deeper", "f"),
		];
		const order: number[] = [];
		await Promise.all(
			Array.from({ length: 40 }, (_, index) =>
				withFileMutationQueue(
					index % 3 === 0 ? spellings[0]! : spellings[1]!,
					async () => {
						order.push(index);
					},
					{ key: canonicalPath(index % 3 === 0 ? spellings[0]! : spellings[1]!) },
				),
			),
		);
		expect(order).toEqual(Array.from({ length: 40 }, (_, index) => index));
	});

	it("releases the slot when fn throws, and forgets files with nothing pending", async () => {
		const file = join(tempDir(), "x");
		await expect(
			withFileMutationQueue(file, async () => {
				throw new Error("failed write");
			}),
		).rejects.toThrow("failed write");
		await expect(withFileMutationQueue(file, async () => "next")).resolves.toBe("next");
		await Promise.all(
			Array.from({ length: 50 }, (_, index) => withFileMutationQueue(join(tempDir(), `f${index}`), () => pause(1))),
		);
		expect(pendingFileMutationQueues()).toBe(0);
	});
});
