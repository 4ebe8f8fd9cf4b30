import { describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createAllTools, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { noSettings } from "../helpers/no-settings.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { inContainer, useTestContainer } from "./docker-fixture.js";

// Confined calls in a busybox container (busybox sh, readlink and /proc, no GNU tools): what a
// descriptor opened is judged there as on a Debian host, a link out of the folder is refused, and
// nothing inside it is refused by mistake.

const box = useTestContainer("toolbelt-confined", "the docker confinement tests", (name) =>
	inContainer(
		name,
		"mkdir -p /srv/w/sub /srv/out && cd /srv/w && printf 'one\\ntwo\\nthree\\n' > a.txt && ln -s a.txt link.txt && ln -s sub dir && printf 'secret\\n' > /srv/out/s.txt && ln -s /srv/out/s.txt escape.txt && ln -s /srv/out away && printf 'h\\n' > h1.txt && ln h1.txt h2.txt",
	),
);

describe("confined calls in a docker:// workspace", () => {
	it("reads, writes, edits and lists inside; refuses a link out", async (context) => {
		if (box.skipReason) return context.skip();
		const workspace = createWorkspaceFromUrl(`docker://${box.name}/srv/w`);
		box.opened.push(workspace);
		const tools = Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
		const { hooks } = await createSafetyLayer({
			cwd: "/srv/w",
			homeDir: "/srv/w",
			mode: "yolo",
			workspace,
			settings: noSettings,
		});
		const call = async (name: string, args: Record<string, unknown>) => {
			const result = await runCall(tools, hooks, name, args);
			return { isError: result.isError, text: textOf(result) };
		};
		expect((await call("read", { path: "link.txt", offset: 2, limit: 1 })).text).toMatch(/2\ttwo/);
		expect((await call("write", { path: "dir/new.txt", content: "fresh\n" })).isError).toBeFalsy();
		expect((await call("write", { path: "dir/deep/er/made.txt", content: "made\n" })).isError).toBeFalsy();
		expect(inContainer(box.name, "cat /srv/w/sub/deep/er/made.txt")).toBe("made\n");
		expect((await call("edit", { path: "a.txt", old_string: "two", new_string: "TWO" })).isError).toBeFalsy();
		expect(inContainer(box.name, "cat /srv/w/a.txt /srv/w/sub/new.txt")).toBe("one\nTWO\nthree\nfresh\n");
		// A file with two names is replaced, never written through (its other name may be outside).
		await call("read", { path: "h1.txt" });
		const replaced = await call("write", { path: "h1.txt", content: "H\n" });
		expect(replaced.isError, replaced.text).toBeFalsy();
		expect(inContainer(box.name, "cat /srv/w/h1.txt /srv/w/h2.txt")).toBe("H\nh\n");
		expect((await call("ls", { path: "dir" })).text).toContain("new.txt");
		expect((await call("grep", { pattern: "fresh", path: "dir" })).text).toContain("new.txt:1: fresh");
		for (const [name, args] of [
			["read", { path: "escape.txt" }],
			["write", { path: "away/s.txt", content: "overwritten\n" }],
			["ls", { path: "away" }],
			["grep", { pattern: "secret", path: "away" }],
		] as const) {
			const result = await call(name, args);
			expect(result.isError, `${name} ${result.text}`).toBe(true);
			expect(result.text).toMatch(/outside the workspace/);
			expect(result.text).not.toContain("secret\n");
		}
		expect(inContainer(box.name, "cat /srv/out/s.txt")).toBe("secret\n");
	}, 60_000);
});
