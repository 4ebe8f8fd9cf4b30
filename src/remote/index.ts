// Remote workspaces: the same tools over SSH, docker/podman and kubectl.
export { createExecTransport, type ExecTransportOptions } from "./exec-transport.js";
export { createRemoteFileOperations, type RemoteFileOperations } from "./remote-files.js";
export type { RemoteRipgrepMode } from "./remote-ripgrep.js";
export { createRemoteShellOperations, type RemoteShellOperations } from "./remote-shell.js";
export {
	createRemoteWorkspace,
	createWorkspaceFromUrl,
	type RemoteWorkspace,
	type WorkspaceFromUrlOptions,
} from "./remote-workspace.js";
export { createSshTransport, type SshTransportOptions } from "./ssh-transport.js";
export { workspaceToolsOptions } from "./tools-options.js";
export { RemoteConnectionError, type RemoteTransport } from "./transport.js";
export { isWorkspaceUrl, parseWorkspaceUrl, type WorkspaceLocation, WorkspaceUrlError } from "./workspace-url.js";
