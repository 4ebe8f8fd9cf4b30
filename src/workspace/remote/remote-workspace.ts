import { posix } from "node:path";
import type { SearchOperations } from "../search/types.js";
import { createLocalWorkspace, type Workspace } from "../workspace.js";
import { fileLibrary } from "./files/file-script.js";
import { createRemoteFileOperations } from "./files/remote-files.js";
import type { RemoteRipgrepMode } from "./search/remote-ripgrep.js";
import { createRemoteSearchOperations } from "./search/remote-search.js";
import { createRemoteShellOperations } from "./shell/remote-shell.js";
import { createExecTransport } from "./transport/exec-transport.js";
import { createScriptChannel } from "./transport/script-channel.js";
import { createSshTransport } from "./transport/ssh-transport.js";
import type { RemoteTransport } from "./transport/transport.js";
import {
	checkRemoteNames,
	parseWorkspaceUrl,
	type WorkspaceLocation,
	WorkspaceUrlError,
	workspaceUrlOf,
} from "./transport/workspace-url.js";

/** A workspace on another machine or in a container; close it when done. */
export interface RemoteWorkspace extends Workspace {
	/** How messages name it, e.g. `ssh://dev@box` or `docker://web`. */
	readonly label: string;
	/** The transport its operations ride on. */
	readonly transport: RemoteTransport;
	/** grep and find there (ripgrep on the remote side, else POSIX find and grep). */
	readonly search: SearchOperations;
	/**
	 * A name for an absolute path there that no local path and no other remote can have, e.g.
	 * `ssh://dev@box/srv/app`: the safety layer keys the trust of the remote project folder by it.
	 */
	urlOf(absolutePath: string): string;
	/**
	 * Stops commands left running in the background there, removes the full-output files named to
	 * the model (also those of sessions whose connection dropped) and closes the connection.
	 */
	close(): Promise<void>;
}

/** Options of `createWorkspaceFromUrl`. */
export interface WorkspaceFromUrlOptions {
	/** `ssh -o` options, each `Key=Value` (as `--ssh-option`). Default: none. */
	sshOptions?: readonly string[];
	/** The `ssh` client, a path taken as given. Default: `ssh` from a folder no sandboxed command can write. */
	sshPath?: string;
	/** The `docker` client, a path taken as given. Default: `docker` from a folder no sandboxed command can write. */
	dockerPath?: string;
	/** The `podman` client, a path taken as given. Default: `podman` from a folder no sandboxed command can write. */
	podmanPath?: string;
	/** The `kubectl` client, a path taken as given. Default: `kubectl` from a folder no sandboxed command can write. */
	kubectlPath?: string;
	/** Which ripgrep grep and find may use there (see `RemoteRipgrepMode`). Default: `auto`. */
	ripgrep?: RemoteRipgrepMode;
}

function transportFor(location: WorkspaceLocation, options: WorkspaceFromUrlOptions): RemoteTransport {
	checkRemoteNames(location);
	switch (location.kind) {
		case "ssh":
			return createSshTransport({ ...location, sshOptions: options.sshOptions, sshPath: options.sshPath });
		case "docker":
		case "podman":
			return createExecTransport({
				label: `${location.kind}://${location.container}`,
				program: (location.kind === "docker" ? options.dockerPath : options.podmanPath) ?? location.kind,
				prefix: ["exec", "-i", location.container],
			});
		case "kubectl":
			return createExecTransport({
				label: `kubectl://${location.namespace ? `${location.namespace}/` : ""}${location.pod}${location.container ? `/${location.container}` : ""}`,
				program: options.kubectlPath ?? "kubectl",
				prefix: [
					"exec",
					"-i",
					...(location.namespace ? ["-n", location.namespace] : []),
					location.pod,
					...(location.container ? ["-c", location.container] : []),
					"--",
				],
			});
	}
}

/**
 * A workspace over a transport: remote file operations (confinement checked in the same remote
 * command), remote shell operations, and path resolution in POSIX syntax at `cwd` there.
 */
export function createRemoteWorkspace(
	transport: RemoteTransport,
	cwd: string,
	options: {
		ripgrep?: RemoteRipgrepMode;
		/** Names paths there (`RemoteWorkspace.urlOf`). Default: the transport's label, then `//` and the path. */
		urlOf?: (absolutePath: string) => string;
	} = {},
): RemoteWorkspace {
	if (!posix.isAbsolute(cwd)) {
		throw new WorkspaceUrlError(`The remote folder '${cwd}' must be an absolute path (e.g. /home/dev/project).`);
	}
	const channel = createScriptChannel(transport, fileLibrary);
	const files = createRemoteFileOperations(transport, [], channel);
	const remoteShell = createRemoteShellOperations(transport, channel);
	// A command may change any file: what was fetched ahead is dropped when one starts and ends.
	const shell = {
		...remoteShell,
		exec: async (request: Parameters<typeof remoteShell.exec>[0]) => {
			files.forget();
			try {
				return await remoteShell.exec(request);
			} finally {
				files.forget();
			}
		},
		execKeepingOutput: async (...args: Parameters<typeof remoteShell.execKeepingOutput>) => {
			files.forget();
			try {
				return await remoteShell.execKeepingOutput(...args);
			} finally {
				files.forget();
			}
		},
	};
	const search = createRemoteSearchOperations(transport, { channel, ripgrep: options.ripgrep, stat: files.stat });
	const workspace = createLocalWorkspace(cwd, { files, shell });
	const resolveTarget = workspace.resolveTarget.bind(workspace);
	return Object.assign(workspace, {
		// grep, find and ls resolve a folder for listing first: the search connection starts meanwhile.
		resolveTarget: (...args: Parameters<Workspace["resolveTarget"]>) => {
			if (args[0].access === "list") search.prepare();
			// A call starts by resolving its target: answers fetched ahead serve the calls of one tool
			// call, never the next one (its stale-write check must see a change made in between).
			files.forget();
			return resolveTarget(...args).then((target) => {
				// Those answers are shared by the calls running at once: the calls stay in order, whatever they touch.
				delete target.touches;
				return target;
			});
		},
		label: transport.label,
		transport,
		search,
		urlOf: options.urlOf ?? ((absolutePath: string) => `${transport.label}/${absolutePath}`),
		close: async () => {
			search.close();
			await shell.close();
			channel.close();
			await transport.close();
		},
	});
}

/**
 * Creates the workspace a URL names: `ssh://[user@]host[:port]/abs/path` (the system `ssh`, one
 * multiplexed connection), `docker://container/path`, `podman://container/path`,
 * `kubectl://[namespace/]pod[/container]/path` (`exec -i`). Nothing connects until the first call.
 *
 * @example
 * const workspace = createWorkspaceFromUrl("ssh://dev@box/home/dev/app");
 * const tools = createAllTools(workspace.cwd, workspaceToolsOptions(workspace));
 * // … run calls …
 * await workspace.close();
 */
export function createWorkspaceFromUrl(url: string, options: WorkspaceFromUrlOptions = {}): RemoteWorkspace {
	const location = parseWorkspaceUrl(url);
	return createRemoteWorkspace(transportFor(location, options), location.path, {
		ripgrep: options.ripgrep,
		urlOf: (absolutePath) => workspaceUrlOf(location, absolutePath),
	});
}
