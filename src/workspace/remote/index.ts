// Remote workspaces: the same tools over SSH, docker/podman and kubectl.

export { createRemoteFileOperations, type RemoteFileOperations } from "./files/remote-files.js";
export {
	createRemoteWorkspace,
	createWorkspaceFromUrl,
	type RemoteWorkspace,
	type WorkspaceFromUrlOptions,
} from "./remote-workspace.js";
export type { RemoteRipgrepMode } from "./search/remote-ripgrep.js";
export { createRemoteShellOperations, type RemoteShellOperations } from "./shell/remote-shell.js";
export { createExecTransport, type ExecTransportOptions } from "./transport/exec-transport.js";
export { runRemote } from "./transport/run-remote.js";
export { createSshTransport, type SshTransportOptions } from "./transport/ssh-transport.js";
export { RemoteConnectionError, type RemoteTransport } from "./transport/transport.js";
export {
	isWorkspaceUrl,
	parseWorkspaceUrl,
	type WorkspaceLocation,
	WorkspaceUrlError,
} from "./transport/workspace-url.js";
