import { mkdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createAllTools, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteRipgrepMode } from "../../src/workspace/remote/index.js";
import { noSettings } from "../helpers/no-settings.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { useSshd } from "../remote/sshd-fixture.js";
import { runCall, textOf } from "../safety/run-calls.js";

// A red-team test of issue 15: a remote search folder swapped for a link out of the workspace
// after the guards checked it, and before the search entered it (the two are separate round trips
// on a remote disk, where no folder can be held open from here). The search must find the swap and
// refuse, with ripgrep on the remote side and with the POSIX fallback; before, it followed the link.

const SECRET = "OUTSIDE-SECRET";
const state = useSshd();

/** A workspace folder with `tree/inside.txt`, and a folder outside it holding the secret. */
function layout(root: string) {
	const workspace = join(root, "ws");
	const outside = join(root, "outside");
	mkdirSync(join(workspace, "tree"), { recursive: true });
	mkdirSync(outside);
	writeFileSync(join(workspace, "tree", "inside.txt"), "needle inside\n");
	writeFileSync(join(outside, "secret.txt"), `needle ${SECRET}\n`);
	return { workspace, outside };
}

/** The tools of a remote workspace at `folder`, behind the safety layer (confinement on). */
async function confinedTools(folder: string, ripgrep: RemoteRipgrepMode) {
	const { sshd } = state;
	if (!sshd) throw new Error("sshd not started");
	const workspace = createWorkspaceFromUrl(`${sshd.urlPrefix}${folder}`, { sshOptions: sshd.sshOptions, ripgrep });
	const tools = Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace)));
	const safety = await createSafetyLayer({
		cwd: folder,
		homeDir: folder,
		mode: "yolo",
		workspace,
		settings: noSettings,
	});
	return { workspace, tools, hooks: safety.hooks };
}

describe.each(["auto", "never"] as const)("a remote search folder swapped after its check (ripgrep: %s)", (ripgrep) => {
	const dir = useTempDir();

	for (const [tool, args] of [
		["grep", { pattern: "needle", path: "tree" }],
		["find", { pattern: "*.txt", path: "tree" }],
	] as const) {
		it(`${tool} refuses to search where the link now leads`, async (context) => {
			if (!state.sshd) return context.skip();
			const { workspace, outside } = layout(dir());
			const remote = await confinedTools(workspace, ripgrep);
			try {
				// The swap happens right after the check passed, as a racing process would do it.
				const pinFolder = remote.workspace.pinFolder.bind(remote.workspace);
				remote.workspace.pinFolder = async (...pinArgs) => {
					const pinned = await pinFolder(...pinArgs);
					renameSync(join(workspace, "tree"), join(workspace, "tree-moved"));
					symlinkSync(outside, join(workspace, "tree"));
					return pinned;
				};
				const result = await runCall(remote.tools, remote.hooks, tool, args);
				const text = textOf(result);
				expect(text).not.toContain(SECRET);
				expect(text).not.toContain("secret.txt");
				expect(result.isError).toBe(true);
				expect(text).toMatch(/changed after the workspace check/);
				expect(text).toContain(realpathSync(outside));
			} finally {
				await remote.workspace.close();
			}
		}, 60_000);
	}

	it("a folder reached through a link inside the workspace is searched as before", async (context) => {
		if (!state.sshd) return context.skip();
		const { workspace } = layout(dir());
		// The workspace itself named through a link, and a link inside it to one of its folders.
		symlinkSync(workspace, join(dir(), "ws-link"));
		symlinkSync(join(workspace, "tree"), join(workspace, "tree-link"));
		const remote = await confinedTools(join(dir(), "ws-link"), ripgrep);
		try {
			for (const path of ["tree", "tree-link"]) {
				const grep = await runCall(remote.tools, remote.hooks, "grep", { pattern: "needle", path });
				expect(grep.isError, textOf(grep)).toBeFalsy();
				expect(textOf(grep)).toMatch(/inside\.txt:1: needle inside/);
				const find = await runCall(remote.tools, remote.hooks, "find", { pattern: "*.txt", path });
				expect(textOf(find)).toContain("inside.txt");
			}
		} finally {
			await remote.workspace.close();
		}
	}, 60_000);
});
