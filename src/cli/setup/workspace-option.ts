import type { RemoteWorkspace, WorkspaceFromUrlOptions } from "../../workspace/remote/index.js";
import { booleanOption, listOption, type OptionValues, stringOption, UsageError } from "../args.js";
import { clientPathFlags } from "./safety-options.js";

/** The client paths the `--ssh-path`, `--docker-path`, … flags give. */
function clientPaths(flags: OptionValues): WorkspaceFromUrlOptions {
	const paths: WorkspaceFromUrlOptions = {};
	for (const [flag, option] of Object.entries(clientPathFlags)) {
		const path = stringOption(flags, flag);
		if (path !== undefined) paths[option] = path;
	}
	return paths;
}

/**
 * The remote workspace `--workspace URL` names (with `--ssh-option`s and client paths), or undefined without the
 * flag. A malformed URL, or a flag that cannot apply to a remote workspace, is a `UsageError`.
 * Nothing connects yet: the first call does, and reports a failure to the model.
 */
export async function openCliWorkspace(flags: OptionValues): Promise<RemoteWorkspace | undefined> {
	const url = stringOption(flags, "workspace");
	if (url === undefined) {
		if (listOption(flags, "ssh-option").length > 0) {
			throw new UsageError("--ssh-option applies only with --workspace ssh://….");
		}
		const pathFlag = Object.keys(clientPathFlags).find((flag) => stringOption(flags, flag) !== undefined);
		if (pathFlag) throw new UsageError(`--${pathFlag} applies only with --workspace.`);
		return undefined;
	}
	if (stringOption(flags, "cwd") !== undefined) throw new UsageError("Use either --cwd or --workspace, not both.");
	if (booleanOption(flags, "sandbox")) {
		throw new UsageError(
			"--sandbox confines commands on this machine; with --workspace they run on the remote side, which has its own isolation (the container, the host's users). Leave out one of the two.",
			{ showHelpHint: false },
		);
	}
	const { createWorkspaceFromUrl, WorkspaceUrlError } = await import("../../workspace/remote/index.js");
	try {
		return createWorkspaceFromUrl(url, { sshOptions: listOption(flags, "ssh-option"), ...clientPaths(flags) });
	} catch (error) {
		if (error instanceof WorkspaceUrlError) throw new UsageError(`--workspace: ${error.message}`);
		throw error;
	}
}
