import { expect } from "vitest";
import { makeNotebook } from "../../helpers/make-notebook.js";
import type { SuiteCase } from "./case-context.js";

// The file tools: what each does to the workspace's own disk, and what it refuses.

const text = (data: Buffer | undefined) => data?.toString("utf8");

export const fileCases: SuiteCase[] = [
	{
		name: "read pages by line, tells binary and missing files, refuses a path outside",
		run: async (t) => {
			t.disk.put("lines.txt", Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n"));
			t.disk.put("blob.bin", Buffer.from([0, 1, 2, 3, 0, 255, 0]));
			const first = await t.call("read", { path: "lines.txt", limit: 3 });
			expect(first.text).toMatch(/line 1\n.*line 2\n.*line 3/);
			expect(first.text).toMatch(/offset=4/);
			expect((await t.call("read", { path: "lines.txt", offset: 2990, limit: 2 })).text).toMatch(
				/2990\tline 2990\n\s+2991\tline 2991/,
			);
			const beyond = await t.call("read", { path: "lines.txt", offset: 4000 });
			expect(beyond.isError).toBe(true);
			expect(beyond.text).toMatch(/3000 lines/);
			expect((await t.call("read", { path: "blob.bin" })).text).toMatch(/binary file/);
			const missing = await t.call("read", { path: "nope.txt" });
			expect(missing.isError).toBe(true);
			expect(missing.text).toMatch(/not found|does not exist|No such/i);
			expect((await t.call("read", { path: "/etc/hostname" })).text).toMatch(/outside the workspace/);
		},
	},
	{
		name: "write creates folders and files, asks for a read first, refuses protected paths",
		run: async (t) => {
			const created = await t.call("write", { path: "deep/new/file.txt", content: "hi\n" });
			expect(created.isError, created.text).toBe(false);
			expect(text(t.disk.read("deep/new/file.txt"))).toBe("hi\n");
			t.disk.put("notes.txt", "hello\n");
			expect((await t.call("write", { path: "notes.txt", content: "x\n" })).text).toMatch(/have not read it/);
			await t.call("read", { path: "notes.txt" });
			t.disk.put("notes.txt", "changed meanwhile\n");
			expect((await t.call("write", { path: "notes.txt", content: "x\n" })).text).toMatch(/changed on disk/);
			expect(text(t.disk.read("notes.txt"))).toBe("changed meanwhile\n");
			expect((await t.call("write", { path: ".env", content: "x" })).text).toMatch(/protected path/);
			expect((await t.call("write", { path: ".git/hooks/pre-commit", content: "x" })).text).toMatch(/protected path/);
			expect(t.disk.read(".env")).toBeUndefined();
		},
	},
	{
		name: "edit changes the file in place of its name, keeps its mode and the symlink to it",
		run: async (t) => {
			t.disk.put("script.sh", "echo old\n", 0o751);
			t.disk.symlink("link.sh", "script.sh");
			await t.call("read", { path: "link.sh" });
			const edited = await t.call("edit", { path: "link.sh", old_string: "old", new_string: "new" });
			expect(edited.isError, edited.text).toBe(false);
			expect(text(t.disk.read("script.sh"))).toBe("echo new\n");
			expect(t.disk.mode("script.sh")).toBe(0o751);
			expect(t.disk.snapshot()).toMatchObject({ [`${t.folder.split("/").pop()}/link.sh`]: "link -> script.sh" });
			const missing = await t.call("edit", { path: "script.sh", old_string: "absent", new_string: "x" });
			expect(missing.isError).toBe(true);
		},
	},
	{
		name: "a file with two names is replaced, not written through: its other name keeps the old content",
		run: async (t) => {
			if (!t.disk.hardlink) return; // no hard links in memory
			t.disk.put("one.txt", "shared old\n");
			t.disk.hardlink("two.txt", "one.txt");
			await t.call("read", { path: "one.txt" });
			const shared = await t.call("edit", { path: "one.txt", old_string: "old", new_string: "new" });
			expect(shared.isError, shared.text).toBe(false);
			expect(shared.text).toMatch(/2 hard links/);
			expect(text(t.disk.read("one.txt"))).toBe("shared new\n");
			expect(text(t.disk.read("two.txt"))).toBe("shared old\n");
		},
	},
	{
		name: "apply_patch adds, updates, moves and deletes files on the workspace's disk",
		run: async (t) => {
			t.disk.put("kept.txt", "one\ntwo\nthree\n");
			t.disk.put("gone.txt", "bye\n");
			t.disk.put("old-name.txt", "moving\n");
			const added = await t.call("apply_patch", {
				patch: "*** Begin Patch\n*** Add File: added/new.txt\n+fresh\n*** End Patch",
			});
			expect(added.isError, added.text).toBe(false);
			expect(text(t.disk.read("added/new.txt"))).toBe("fresh\n");
			const patch = [
				"*** Begin Patch",
				"*** Update File: kept.txt",
				" one",
				"-two",
				"+2",
				" three",
				"*** Update File: old-name.txt",
				"*** Move to: new-name.txt",
				"-moving",
				"+moved",
				"*** Delete File: gone.txt",
				"*** End Patch",
			].join("\n");
			const result = await t.call("apply_patch", { patch });
			expect(result.isError, result.text).toBe(false);
			expect(text(t.disk.read("kept.txt"))).toBe("one\n2\nthree\n");
			expect(text(t.disk.read("new-name.txt"))).toBe("moved\n");
			expect(t.disk.read("old-name.txt")).toBeUndefined();
			expect(t.disk.read("gone.txt")).toBeUndefined();
			const refused = await t.call("apply_patch", {
				patch: "*** Begin Patch\n*** Add File: .envrc\n+export X=1\n*** End Patch",
			});
			expect(refused.text).toMatch(/protected path/);
			expect(t.disk.read(".envrc")).toBeUndefined();
		},
	},
	{
		name: "edit of a notebook cell rewrites that cell only",
		run: async (t) => {
			t.disk.put(
				"book.ipynb",
				makeNotebook([
					{ cell_type: "markdown", source: "# Title" },
					{ cell_type: "code", source: ["x = 1\n", "print(x)"] },
				]),
			);
			await t.call("read", { path: "book.ipynb" });
			const edited = await t.call("edit", { path: "book.ipynb", cell: 2, new_source: "y = 2\nprint(y)" });
			expect(edited.isError, edited.text).toBe(false);
			const cells = JSON.parse(text(t.disk.read("book.ipynb")) ?? "{}").cells;
			expect([cells[0].source].flat().join("")).toBe("# Title");
			expect([cells[1].source].flat().join("")).toBe("y = 2\nprint(y)");
		},
	},
	{
		name: "ls lists entries, folders marked, links shown",
		run: async (t) => {
			t.disk.put("a.txt", "a");
			t.disk.put(".hidden", "h");
			t.disk.symlink("b.txt", "a.txt");
			t.disk.put("sub/c.txt", "c");
			const listing = await t.call("ls", {});
			expect(listing.isError, listing.text).toBe(false);
			for (const name of ["a.txt", ".hidden", "b.txt", "sub/"]) expect(listing.text).toContain(name);
			expect((await t.call("ls", { path: "sub" })).text).toContain("c.txt");
		},
	},
];
