import { isAbsolute, resolve } from "node:path";
import { ProgramNotFoundError, requireTrustedProgram } from "../../local/index.js";
import { RemoteConnectionError } from "./transport.js";

/** Where the user gives the path of each client remote workspaces run: its option and CLI flag. */
const givenBy: Record<string, string> = {
	ssh: "`sshPath` (the --ssh-path flag)",
	docker: "`dockerPath` (the --docker-path flag)",
	podman: "`podmanPath` (the --podman-path flag)",
	kubectl: "`kubectlPath` (the --kubectl-path flag)",
};

/**
 * The client program (`ssh`, `docker`, `podman`, `kubectl`) a transport starts, looked up at each
 * start. The client runs on this machine with the user's rights, keys and kubeconfig, so a bare
 * name comes from `findTrustedProgram` — never from a PATH folder a sandboxed command of a local
 * workspace can write (the project's `node_modules/.bin`, say) — while a path the user gave is
 * taken as given (as `sandbox.bwrapPath`). None found is a `RemoteConnectionError` that says where
 * toolbelt looked and which option gives a path.
 */
export function clientProgram(program: string): () => string {
	if (isAbsolute(program) || program.includes("/")) {
		const path = resolve(program);
		return () => path;
	}
	// Asked at each start (the look-up caches): a root noted since may rule out where it was found.
	return () => {
		try {
			return requireTrustedProgram(program, "reach a remote workspace", undefined, givenBy[program]);
		} catch (error) {
			if (error instanceof ProgramNotFoundError) throw new RemoteConnectionError(error.message);
			throw error;
		}
	};
}
