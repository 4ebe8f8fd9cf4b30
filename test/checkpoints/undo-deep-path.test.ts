// `toolbelt undo` of a write 1,800 folders deep took ~26 s: every real path it asked for (about
// 150 of them: the restore guard's look-ups and the restore's own) cost ~110 ms, because the C
// library's realpath reads the link of each prefix of the path in turn (1,800 look-ups of growing
// length: quadratic in the depth). The local real path is now the kernel's: one walk of the path.
import { lstat, mkdir, readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { createCliCheckpoints } from "../../src/cli/setup/safety-setup.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createLocalWorkspace, createWriteTool } from "../../src/tools/index.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { cpuMsSince } from "../helpers/cpu-time.js";
import { useTempDir } from "../helpers/temp-dir.js";

const dir = useTempDir();

/** Deep enough that the quadratic walk costs seconds, short enough to stay below PATH_MAX. */
const DEPTH = 1_800;

const exists = (path: string) =>
	lstat(path).then(
		() => true,
		() => false,
	);

describe("toolbelt undo of a write 1,800 folders deep", () => {
	it("costs CPU time linear in the depth, not quadratic", async () => {
		const root = await realpath(dir());
		const project = join(root, "project");
		const home = join(root, "home");
		await mkdir(project);
		await mkdir(home);
		const env = { HOME: home, XDG_STATE_HOME: join(root, "state") };
		const checkpoints = await createCliCheckpoints(project, createMemoryIO({ cwd: project, env }).io);
		const folder = ["b", ...Array.from({ length: DEPTH - 1 }, () => "a")].join("/");
		const toolCalls = [
			{ type: "toolCall" as const, id: "1", name: "write", arguments: { path: `${folder}/f.txt`, content: "x" } },
		];
		const workspace = createLocalWorkspace(project);
		const { messages } = await executeToolCalls({
			tools: [createWriteTool(project, { workspace })],
			toolCalls,
			...checkpoints.hooks,
		});
		expect(messages[0]?.isError, JSON.stringify(messages[0]?.content)).toBe(false);

		const undo = createMemoryIO({ cwd: project, env });
		const start = process.cpuUsage();
		const code = await main(["undo", "--cwd", project], undo.io);
		const cpuMs = cpuMsSince(start);
		expect(code, undo.stderr()).toBe(0);
		expect(await exists(join(project, folder, "f.txt"))).toBe(false);
		expect(await readdir(project)).toEqual(["b"]);
		// ~17 s of CPU before (about 150 quadratic real paths).
		expect(cpuMs).toBeLessThan(4_000);
	}, 120_000);
});
