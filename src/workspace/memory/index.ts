// The in-memory backend: a workspace whose files live in memory (tests, virtual workspaces).

export { MemoryFiles } from "./memory-files.js";
export { createMemoryWorkspace, type MemoryWorkspace, type MemoryWorkspaceOptions } from "./memory-workspace.js";
export { CANNOT_RUN_COMMANDS, noShellOperations } from "./no-shell.js";
