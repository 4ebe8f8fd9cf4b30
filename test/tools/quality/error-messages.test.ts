import { execFileSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../../src/tools/edit.js";
import { createReadTool } from "../../../src/tools/read.js";
import { createWriteTool } from "../../../src/tools/write.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

async function failure(promise: Promise<unknown>): Promise<string> {
	const error = await promise.then(
		() => undefined,
		(caught: Error) => caught,
	);
	if (!error) throw new Error("expected the call to fail");
	return error.message;
}

describe("error messages name what happened and the next step", () => {
	it("write to a FIFO", async () => {
		execFileSync("mkfifo", [join(temp(), "pipe")]);
		const message = await failure(createWriteTool(temp()).execute("1", { path: "pipe", content: "x" }, undefined));
		expect(message).toMatch(/^Cannot write pipe: it is not a regular file \(a named pipe, socket or device\)/);
		expect(message).toContain("nothing was written");
		expect(message).toContain("rm pipe via bash");
		expect(message).not.toContain("EINVAL");
	});

	it("edit and write of a symlink loop", async () => {
		await symlink(join(temp(), "b"), join(temp(), "a"));
		await symlink(join(temp(), "a"), join(temp(), "b"));
		const edit = await failure(
			createEditTool(temp()).execute("1", { path: "a", old_string: "x", new_string: "y" }, undefined),
		);
		expect(edit).toMatch(/^Cannot open a: it is a symlink loop/);
		expect(edit).toContain("readlink a");
		expect(edit).not.toContain("ELOOP");
		const write = await failure(createWriteTool(temp()).execute("1", { path: "a", content: "x" }, undefined));
		expect(write).toMatch(/^Cannot (open|write) a: it is a symlink loop/);
	});

	it("reads a /proc file that reports size 0 (its content, not an empty file)", async () => {
		const result = await createReadTool(temp()).execute("1", { path: "/proc/self/status" }, undefined);
		const text = resultText(result);
		expect(text).toMatch(/^\s+1\tName:\t/);
		expect(text).toContain(`Pid:\t${process.pid}`);
		expect(text).toContain("/proc/self is the process running the tools");
		expect(result.details).toMatchObject({ kind: "text", startLine: 1 });
	});

	it("the long-line hint quotes the path and names the line", async () => {
		const name = "it's a long file.txt";
		await writeFile(join(temp(), name), `short\n${"x".repeat(2500)}\n`);
		const text = resultText(await createReadTool(temp()).execute("1", { path: name }, undefined));
		expect(text).toContain(
			`(the first: line 2); to see the rest of one, use bash: sed -n '2p' 'it'\\''s a long file.txt' | cut -c2001-`,
		);
	});
});
