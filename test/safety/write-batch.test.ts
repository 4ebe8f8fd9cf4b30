import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCalls, textOf } from "./run-calls.js";

const tempDir = useTempDir();

// The path a model's batch of small writes takes through the whole safety layer: confinement
// (descriptors verified), stale-write snapshots after each write (read back through the confined
// operations), permissions. A batch is what the write path was made fast for; these are the
// guarantees it keeps.
describe("a batch of writes through the safety layer", () => {
	it("lands every write inside, refuses the one that leaves through a link, and keeps call order on one path", async () => {
		const project = join(tempDir(), "proj");
		const outside = join(tempDir(), "outside");
		await mkdir(join(project, "out"), { recursive: true });
		await mkdir(outside);
		await symlink(outside, join(project, "out", "link"));
		const safety = await createSafetyLayer({ cwd: project, homeDir: join(tempDir(), "home"), mode: "accept-edits" });
		const tools = [createWriteTool(project), createReadTool(project)];
		const calls: [string, Record<string, unknown>][] = [];
		for (let index = 0; index < 40; index++) {
			calls.push(["write", { path: `out/file-${index}.txt`, content: `content ${index}\n` }]);
			if (index === 20) calls.push(["write", { path: "out/link/planted.txt", content: "escaped\n" }]);
		}
		// The same file three times: the model's own earlier write counts as seen, and the last one wins.
		for (const round of [1, 2, 3]) calls.push(["write", { path: "out/same.txt", content: `round ${round}\n` }]);

		const messages = await runCalls(tools, safety.hooks, calls);

		const refused = messages.filter((message) => message.isError);
		expect(refused.map(textOf)).toEqual([expect.stringMatching(/outside the workspace/)]);
		expect(existsSync(join(outside, "planted.txt"))).toBe(false);
		expect(readdirSync(outside)).toEqual([]);
		for (let index = 0; index < 40; index++) {
			expect(await readFile(join(project, "out", `file-${index}.txt`), "utf8")).toBe(`content ${index}\n`);
		}
		expect(await readFile(join(project, "out", "same.txt"), "utf8")).toBe("round 3\n");
		expect(messages.slice(-3).map(textOf)).toEqual([
			"Created out/same.txt: 1 line, 8 bytes.",
			"Replaced out/same.txt: 1 line, 8 bytes.",
			"Replaced out/same.txt: 1 line, 8 bytes.",
		]);
		// No temp file is left behind, and nothing but the 41 files (and the link) is there.
		expect(readdirSync(join(project, "out")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
		expect(readdirSync(join(project, "out"))).toHaveLength(42);
	});

	it("still refuses a write over a file changed on disk since the batch's own earlier write", async () => {
		const project = join(tempDir(), "proj");
		await mkdir(project);
		const safety = await createSafetyLayer({ cwd: project, homeDir: join(tempDir(), "home"), mode: "accept-edits" });
		const tools = [createWriteTool(project)];
		const [first] = await runCalls(tools, safety.hooks, [["write", { path: "a.txt", content: "mine\n" }]]);
		expect(first?.isError).toBe(false);
		await writeFile(join(project, "a.txt"), "theirs\n");
		const [second] = await runCalls(tools, safety.hooks, [["write", { path: "a.txt", content: "mine again\n" }]]);
		if (!second) throw new Error("no result");
		expect(second.isError).toBe(true);
		expect(textOf(second)).toMatch(/changed on disk since you last read it/);
		expect(await readFile(join(project, "a.txt"), "utf8")).toBe("theirs\n");
	});
});
