import { basename } from "node:path";
import { expect } from "vitest";
import type { SuiteCase } from "./case-context.js";

// Checkpoints and undo: before-images come from the workspace's disk and restores land there.

export const undoCases: SuiteCase[] = [
	{
		name: "undo puts back what write, edit and apply_patch changed, turn by turn",
		run: async (t) => {
			t.disk.put("run.sh", "echo hi\n", 0o750);
			t.disk.put("doomed.txt", "keep me\n");
			t.disk.put("target.txt", "through a link\n");
			t.disk.symlink("link.txt", "target.txt");
			const before = t.disk.snapshot();
			const ok = async (name: string, args: Record<string, unknown>) => {
				const result = await t.call(name, args);
				expect(result.isError, result.text).toBe(false);
			};
			await ok("edit", { path: "run.sh", old_string: "echo hi", new_string: "echo hello" });
			await ok("write", { path: "new/deep/made.txt", content: "created\n" });
			await ok("write", { path: "busy/made.txt", content: "created\n" });
			// Someone else's file in a folder the write made: that folder stays.
			t.disk.put("busy/theirs.txt", "not undone\n");
			const afterFirst = t.disk.snapshot();
			t.checkpoints.startTurn();
			await ok("read", { path: "link.txt" });
			await ok("write", { path: "link.txt", content: "rewritten through the link\n" });
			await ok("apply_patch", { patch: "*** Begin Patch\n*** Delete File: doomed.txt\n*** End Patch" });
			expect(t.disk.read("doomed.txt")).toBeUndefined();
			expect(t.disk.read("target.txt")?.toString()).toBe("rewritten through the link\n");

			expect(await t.checkpoints.restore()).toMatchObject({ calls: 2, turns: 1, conflicts: [], refused: [] });
			expect(t.disk.snapshot()).toEqual(afterFirst);
			// Changed there meanwhile: refused and listed, nothing written; --force overwrites.
			t.disk.put("run.sh", "echo someone else\n", 0o750);
			expect(await t.checkpoints.restore()).toMatchObject({ calls: 0, conflicts: [`${t.folder}/run.sh`] });
			expect(t.disk.read("run.sh")?.toString()).toBe("echo someone else\n");
			expect(await t.checkpoints.restore({ force: true })).toMatchObject({ calls: 3, turns: 1 });
			// The folders a write made go with its file (new/deep, new); one holding another file stays.
			const case_ = basename(t.folder);
			const { [`${case_}/busy`]: busy, [`${case_}/busy/theirs.txt`]: theirs, ...after } = t.disk.snapshot();
			expect([busy, theirs?.split(" ")[0]]).toEqual(["dir", "644"]);
			expect(after).toEqual(before);
			expect(t.disk.mode("run.sh")).toBe(0o750);
			expect(await t.checkpoints.list()).toEqual([]);
		},
	},
];
