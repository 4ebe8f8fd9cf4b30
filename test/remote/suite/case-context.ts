import { join } from "node:path";
import { type Checkpoints, checkpointFilesOf, createCheckpoints } from "../../../src/checkpoints/index.js";
import type { AnyAgentTool } from "../../../src/engine/index.js";
import { composeHooks, type ToolHooks } from "../../../src/engine/index.js";
import { createSafetyLayer } from "../../../src/safety/index.js";
import { createTools, type ToolWorkspace } from "../../../src/tools/index.js";
import { noSettings } from "../../helpers/no-settings.js";
import { runCall, textOf } from "../../safety/run-calls.js";
import type { Disk, SuiteBackend } from "./disks.js";

/** What a case gets: its backend, a folder of its own on that backend's disk, and the tools there. */
export interface CaseContext {
	backend: SuiteBackend;
	/** The case's folder as the workspace names it. */
	folder: string;
	/** The backend's disk, paths relative to the case's folder. */
	disk: Disk;
	workspace: ToolWorkspace;
	/** The session's checkpoints (undo). */
	checkpoints: Checkpoints;
	/** Runs one tool call through the safety layer (yolo: every call runs, confinement still judges) and the checkpoints. */
	call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }>;
}

/** One case of the suite: the same body runs on every backend. */
export interface SuiteCase {
	name: string;
	run(context: CaseContext): Promise<void>;
}

/** `disk` seen from its sub-folder `sub` (the snapshot stays the whole disk's). */
function scoped(disk: Disk, sub: string): Disk {
	return {
		put: (path, content, mode) => disk.put(join(sub, path), content, mode),
		symlink: (path, target) => disk.symlink(join(sub, path), target),
		...(disk.hardlink
			? { hardlink: (path: string, existing: string) => disk.hardlink?.(join(sub, path), join(sub, existing)) }
			: {}),
		read: (path) => disk.read(join(sub, path)),
		mode: (path) => disk.mode(join(sub, path)),
		snapshot: () => disk.snapshot(),
	};
}

/** Opens the case's folder on `backend` (made on its disk first) with tools, safety layer and checkpoints. */
export async function openCase(backend: SuiteBackend, sub: string, stateDir: string): Promise<CaseContext> {
	backend.disk.put(`${sub}/.case`, `${sub}\n`);
	const folder = join(backend.folder, sub);
	const workspace = backend.open(sub);
	const tools: AnyAgentTool[] = Object.values(createTools(workspace));
	const safety = await createSafetyLayer({
		cwd: folder,
		homeDir: folder,
		mode: "yolo",
		workspace,
		settings: noSettings,
	});
	const root = await workspace.realPath(folder);
	const checkpoints = await createCheckpoints({
		workspace: backend.storeKey(root),
		root,
		stateDir,
		files: checkpointFilesOf(workspace, { roots: [root], posixPaths: backend.posixPaths }),
	});
	const hooks: ToolHooks = composeHooks([safety.hooks, checkpoints.hooks]);
	return {
		backend,
		folder,
		disk: scoped(backend.disk, sub),
		workspace,
		checkpoints,
		call: async (name, args) => {
			const message = await runCall(tools, hooks, name, args);
			return { isError: message.isError === true, text: textOf(message) };
		},
	};
}
