import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { clientProgram } from "./client-program.js";
import { RemoteConnectionError, type RemoteTransport, stderrSummary } from "./transport.js";

/** Options of `createExecTransport`. */
export interface ExecTransportOptions {
	/** How messages name the target, e.g. `docker://web`. */
	label: string;
	/**
	 * The client: `docker`, `podman` or `kubectl`, found where no sandboxed command can have planted
	 * one (see `clientProgram`), or a path, taken as given.
	 */
	program: string;
	/** Arguments before `sh -c …`, e.g. `["exec", "-i", "web"]` or `["exec", "-i", "-n", "ns", "pod", "--"]`. */
	prefix: readonly string[];
}

/**
 * A transport through a container client's `exec -i` (docker, podman, kubectl): each call is
 * one `exec`, so `DOCKER_HOST`, the docker context and the kubeconfig apply as they do for the user.
 */
export function createExecTransport(options: ExecTransportOptions): RemoteTransport {
	const program = clientProgram(options.program);
	return {
		label: options.label,
		spawn: async (script, args): Promise<ChildProcessWithoutNullStreams> =>
			spawn(program(), [...options.prefix, "sh", "-c", script, "sh", ...args], {
				stdio: ["pipe", "pipe", "pipe"],
			}),
		failure(exitCode, stderr) {
			const said = stderrSummary(stderr);
			if (
				/is not running|No such container|not found|NotFound|cannot exec in a stopped|container .* is not/i.test(
					said,
				) &&
				exitCode !== 0 &&
				!/TOOLBELT_/.test(stderr)
			) {
				return new RemoteConnectionError(
					`The container behind ${options.label} is not running or does not exist (${said}). Start it, or use another --workspace.`,
				);
			}
			if ((exitCode === 126 || exitCode === 127) && /exec|executable file not found|no such file/i.test(said)) {
				return new RemoteConnectionError(
					`${options.label} has no POSIX sh (${said}); toolbelt needs sh and coreutils there.`,
				);
			}
			if (/Cannot connect to the Docker daemon|Unable to connect to the server|connection refused/i.test(said)) {
				return new RemoteConnectionError(
					`Cannot reach the engine behind ${options.label} (${said}). Check DOCKER_HOST, the docker context or the kubeconfig.`,
				);
			}
			return undefined;
		},
		close: async () => {},
	};
}
