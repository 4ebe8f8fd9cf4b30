import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createAllTools, workspaceToolsOptions } from "../../src/tools/index.js";
import { createLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { noSettings } from "../helpers/no-settings.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { inContainer, useTestContainer } from "./docker-fixture.js";
import { useSshd } from "./sshd-fixture.js";

// A file name may hold a newline or an escape byte. Shown raw, the first reads as two entries and
// the second as a terminal command: ls, find, grep and read's messages show both escaped, with
// one escaping for every backend.

// `a\nb.txt` twice: once with a newline, once with a backslash and an n (shown `a\\nb.txt`).
const MAKE_FILES = `cd "$1" && printf 'hello\\n' > "$(printf 'a\\nb.txt')" && printf 'hello\\n' > "$(printf 'x\\033[31mred.txt')" && printf 'plain\\n' > 'a\\nb.txt'`;
const sshd = useSshd();
const box = useTestContainer("toolbelt-names", "the control-name tests", (name) =>
	inContainer(name, `mkdir -p /srv/names && sh -c '${MAKE_FILES.replaceAll("'", "'\\''")}' sh /srv/names`),
);
const tempDir = useTempDir();

async function callsOn(workspace: Workspace) {
	const remote = "urlOf" in workspace;
	const tools = Object.values(
		remote ? createAllTools(workspace.cwd, workspaceToolsOptions(workspace as never)) : createAllTools(workspace.cwd),
	);
	const { hooks } = await createSafetyLayer({
		cwd: workspace.cwd,
		homeDir: workspace.cwd,
		mode: "yolo",
		...(remote ? { workspace } : {}),
		settings: noSettings,
	});
	return async (name: string, args: Record<string, unknown>) => textOf(await runCall(tools, hooks, name, args));
}

async function expectEscaped(workspace: Workspace): Promise<void> {
	const call = await callsOn(workspace);
	const listing = await call("ls", {});
	expect(listing.split("\n")).toContain("a\\nb.txt");
	expect(listing.split("\n")).toContain("a\\\\nb.txt");
	expect(listing.split("\n")).toContain("x\\e[31mred.txt");
	const found = await call("find", { pattern: "*red.txt" });
	expect(found).toContain("x\\e[31mred.txt");
	expect((await call("find", { pattern: "a*b.txt" })).split("\n")).toEqual(
		expect.arrayContaining(["a\\nb.txt", "a\\\\nb.txt"]),
	);
	const grep = await call("grep", { pattern: "hello|plain", path: "." });
	expect(grep).toContain("x\\e[31mred.txt");
	expect(grep).toMatch(/^a\\nb\.txt:1: hello$/m);
	expect(grep).toMatch(/^a\\\\nb\.txt:1: plain$/m);
	// A name given back as it was shown reaches that file.
	expect(await call("read", { path: "a\\\\nb.txt" })).toContain("plain");
	expect(await call("read", { path: "x\\e[31mred.txt" })).toContain("hello");
	const read = await call("read", { path: "x\u001b[31mred.txt/inside" });
	expect(read).toContain("x\\e[31mred.txt");
	for (const text of [listing, found, grep, read]) expect(text).not.toContain("\u001b");
}

describe("control characters in file names are shown escaped", () => {
	it("on the local disk", async () => {
		execFileSync("sh", ["-c", MAKE_FILES, "sh", tempDir()]);
		await expectEscaped(createLocalWorkspace(tempDir()));
	});

	it("over ssh", async (context) => {
		if (!sshd.sshd) return context.skip();
		execFileSync("sh", ["-c", MAKE_FILES, "sh", tempDir()]);
		const workspace = createWorkspaceFromUrl(`${sshd.sshd.urlPrefix}${tempDir()}`, {
			sshOptions: sshd.sshd.sshOptions,
		});
		sshd.opened.push(workspace);
		await expectEscaped(workspace);
	}, 60_000);

	it("in a docker container", async (context) => {
		if (box.skipReason) return context.skip();
		const workspace = createWorkspaceFromUrl(`docker://${box.name}/srv/names`);
		box.opened.push(workspace);
		await expectEscaped(workspace);
	}, 60_000);
});
