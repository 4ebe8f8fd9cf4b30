import { posix } from "node:path";
import { searchThroughFiles } from "../local/index.js";
import type { SearchOperations } from "../search/types.js";
import { createLocalWorkspace, type Workspace } from "../workspace.js";
import { MemoryFiles } from "./memory-files.js";
import { noShellOperations } from "./no-shell.js";

/** A workspace held in memory: its files, and a search that reads only them. */
export interface MemoryWorkspace extends Workspace {
	/** The files (`put`, `get` and `snapshot` let a test or host program set up and inspect them). */
	readonly files: MemoryFiles;
	/** grep and find over `files` (see `searchThroughFiles`). */
	readonly search: SearchOperations;
}

/** Options of `createMemoryWorkspace`. */
export interface MemoryWorkspaceOptions {
	/** The files, e.g. shared by several workspaces. Default: a new, empty `MemoryFiles`. */
	files?: MemoryFiles;
}

/**
 * A workspace whose files live in memory at `cwd` (a POSIX path, created there): the file tools,
 * search, checkpoints and undo act on it exactly as on a disk, and nothing reaches this machine's
 * disk. It cannot run commands: bash and powershell say so (`CANNOT_RUN_COMMANDS`). For tests and
 * for host programs that keep their files virtual.
 *
 * @example
 * const workspace = createMemoryWorkspace("/project");
 * workspace.files.put("/project/notes.md", "# Notes\n");
 * const tools = createTools(workspace);
 */
export function createMemoryWorkspace(cwd = "/workspace", options: MemoryWorkspaceOptions = {}): MemoryWorkspace {
	const files = options.files ?? new MemoryFiles();
	const folder = posix.resolve(cwd);
	files.putFolder(folder);
	const workspace = createLocalWorkspace(folder, { files, shell: noShellOperations });
	return Object.assign(workspace, { files, search: searchThroughFiles(files) });
}
