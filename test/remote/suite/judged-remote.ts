import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointFilesOf, createCheckpoints } from "../../../src/checkpoints/index.js";
import { type AnyAgentTool, composeHooks } from "../../../src/engine/index.js";
import { createSafetyLayer } from "../../../src/safety/index.js";
import { createTools } from "../../../src/tools/index.js";
import {
	createExecTransport,
	createRemoteWorkspace,
	createSshTransport,
	type RemoteTransport,
	type RemoteWorkspace,
} from "../../../src/workspace/remote/index.js";
import { noSettings } from "../../helpers/no-settings.js";
import { runCall, textOf } from "../../safety/run-calls.js";
import type { SshdFixture } from "../sshd-fixture.js";

/** A transport that counts its remote round trips: processes started, and requests sent to a long-lived one. */
export interface CountingTransport extends RemoteTransport {
	/** Round trips since the last `reset`. */
	roundTrips(): number;
	reset(): void;
}

/** Wraps `transport`, counting each process it starts and each request line (`req …`) written to one. */
export function countingTransport(transport: RemoteTransport): CountingTransport {
	let count = 0;
	return {
		label: transport.label,
		failure: (code, stderr) => transport.failure(code, stderr),
		close: () => transport.close(),
		spawn: async (script, args) => {
			const child: ChildProcessWithoutNullStreams = await transport.spawn(script, args);
			// A one-off process is one round trip; a channel's loop is counted per request it is sent.
			if (!/^while IFS= read -r line/m.test(script)) count++;
			const write = child.stdin.write.bind(child.stdin) as (...args: unknown[]) => boolean;
			child.stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
				if (typeof chunk === "string" && chunk.startsWith("req ")) count++;
				return write(chunk, ...rest);
			}) as typeof child.stdin.write;
			return child;
		},
		roundTrips: () => count,
		reset: () => {
			count = 0;
		},
	};
}

/** An ssh transport to the fixture's sshd. */
export function sshTransportOf(sshd: SshdFixture): RemoteTransport {
	const url = new URL(sshd.urlPrefix);
	return createSshTransport({
		host: url.hostname,
		port: Number(url.port),
		user: decodeURIComponent(url.username),
		sshOptions: sshd.sshOptions,
	});
}

/** A `docker exec` transport into `container`. */
export function dockerTransportOf(container: string): RemoteTransport {
	return createExecTransport({ label: `docker://${container}`, program: "docker", prefix: ["exec", "-i", container] });
}

/**
 * A remote workspace at `folder` with every tool, the safety layer (mode `accept-edits`, no
 * settings) and checkpoints (a store in a temp folder of this machine), as a CLI session has them.
 */
export async function judgedRemote(transport: RemoteTransport, folder: string) {
	const workspace: RemoteWorkspace = createRemoteWorkspace(transport, folder);
	const tools: AnyAgentTool[] = Object.values(createTools(workspace));
	const safety = await createSafetyLayer({
		cwd: folder,
		homeDir: folder,
		mode: "accept-edits",
		workspace,
		settings: noSettings,
		allowWriteWithoutRead: true,
	});
	const root = await workspace.files.realpath(folder);
	const checkpoints = await createCheckpoints({
		workspace: workspace.urlOf(root),
		root,
		stateDir: mkdtempSync(join(tmpdir(), "toolbelt-state-")),
		files: checkpointFilesOf(workspace, { roots: [root], posixPaths: true }),
	});
	const hooks = composeHooks([safety.hooks, checkpoints.hooks]);
	const call = async (name: string, args: Record<string, unknown>) => {
		const message = await runCall(tools, hooks, name, args);
		return { isError: message.isError === true, text: textOf(message) };
	};
	return { workspace, call };
}
