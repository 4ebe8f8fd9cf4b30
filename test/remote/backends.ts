import { afterAll, beforeAll } from "vitest";
import { createLocalWorkspace, type Workspace } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { type SshdFixture, startSshdOrSkip } from "./sshd-fixture.js";

/** One backend of the shared suite: how to open a workspace on a local folder. */
export interface Backend {
	/** `local` or `ssh`. */
	name: string;
	/** A workspace at `folder` (ssh reaches the same disk through loopback sshd). */
	open(folder: string): Workspace;
	/** Why this backend is skipped, once known (sshd could not start). */
	skipReason(): string | undefined;
}

const opened: RemoteWorkspace[] = [];

/** Closes the remote workspaces a test opened. */
export async function closeOpened(): Promise<void> {
	await Promise.all(opened.splice(0).map((workspace) => workspace.close()));
}

/** The local backend and the SSH backend (a throwaway sshd on loopback, started once per file). */
export function useBackends(): { backends: Backend[]; sshd: () => SshdFixture | undefined } {
	let fixture: SshdFixture | undefined;
	let reason: string | undefined;
	beforeAll(async () => {
		({ sshd: fixture, skipReason: reason } = await startSshdOrSkip());
	}, 30_000);
	afterAll(async () => {
		await closeOpened();
		await fixture?.stop();
	});
	const local: Backend = { name: "local", open: (folder) => createLocalWorkspace(folder), skipReason: () => undefined };
	const ssh: Backend = {
		name: "ssh",
		open: (folder) => {
			if (!fixture) throw new Error(reason ?? "sshd not started");
			const workspace = createWorkspaceFromUrl(`${fixture.urlPrefix}${folder}`, { sshOptions: fixture.sshOptions });
			opened.push(workspace);
			return workspace;
		},
		skipReason: () => reason,
	};
	return { backends: [local, ssh], sshd: () => fixture };
}
