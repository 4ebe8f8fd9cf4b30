import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCheckpoints, remoteCheckpointFiles } from "../../src/checkpoints/index.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createEditTool, createWriteTool, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { inContainer, useTestContainer } from "./docker-fixture.js";

// Checkpoints inside a container (busybox only: no Node, no GNU coreutils there). Everything is
// looked at with `docker exec`: the container's files are not on this machine's disk at all.

const box = useTestContainer("toolbelt-undo", "the docker checkpoint tests");
const container = box.name;
const state = mkdtempSync(join(tmpdir(), "toolbelt-undo-docker-state-"));

afterAll(() => rmSync(state, { recursive: true, force: true }));

/** Mode, content and link target of every entry in /srv/p, as the container sees them. */
function remoteTree(): string {
	return inContainer(
		container,
		'cd /srv/p && find . | sort | while read -r f; do if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; elif [ -f "$f" ]; then echo "$f $(stat -c %a "$f") $(cat "$f" | od -An -c | tr -s " ")"; fi; done',
	);
}

describe("checkpoints of a docker:// workspace", () => {
	it("write and edit in the container are undone there; a change made there meanwhile is refused", async (context) => {
		if (box.skipReason) return context.skip();
		inContainer(
			container,
			"mkdir -p /srv/p && cd /srv/p && printf 'echo hi\\n' > run.sh && chmod 750 run.sh && printf 'target\\n' > target.txt && ln -s target.txt link.txt",
		);
		const workspace = createWorkspaceFromUrl(`docker://${container}/srv/p`);
		box.opened.push(workspace);
		const options = workspaceToolsOptions(workspace);
		const tools = [createWriteTool(workspace.cwd, options.write), createEditTool(workspace.cwd, options.edit)];
		const checkpoints = await createCheckpoints({
			workspace: workspace.urlOf("/srv/p"),
			root: "/srv/p",
			stateDir: state,
			files: remoteCheckpointFiles(workspace),
		});
		let id = 0;
		const call = async (name: string, args: Record<string, unknown>) => {
			const toolCalls: ToolCall[] = [{ type: "toolCall", id: String(++id), name, arguments: args }];
			const { messages } = await executeToolCalls({ tools, toolCalls, ...checkpoints.hooks });
			expect(messages[0]?.isError, JSON.stringify(messages[0]?.content)).toBe(false);
		};
		const before = remoteTree();
		expect(before).toMatch(/^\.\/link\.txt -> target\.txt\n\.\/run\.sh 750 .*\n\.\/target\.txt 644 /);
		await call("edit", { path: "run.sh", old_string: "echo hi", new_string: "echo hello" });
		await call("write", { path: "link.txt", content: "through the link\n" });
		await call("write", { path: "sub/new.txt", content: "new\n" });
		expect(remoteTree()).not.toBe(before);

		inContainer(container, "printf 'echo other\\n' > /srv/p/run.sh");
		const refused = await checkpoints.restore();
		expect(refused).toMatchObject({ calls: 0, conflicts: ["/srv/p/run.sh"] });
		expect(inContainer(container, "cat /srv/p/run.sh")).toBe("echo other\n");

		expect((await checkpoints.restore({ force: true })).calls).toBe(3);
		expect(remoteTree()).toBe(before);
		expect(inContainer(container, "[ -e /srv/p/sub/new.txt ] && echo there || echo gone")).toBe("gone\n");
	}, 120_000);
});
