import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inContainer, useTestContainer } from "./docker-fixture.js";
import { type SshdFixture, startSshdOrSkip } from "./sshd-fixture.js";
import {
	type CountingTransport,
	countingTransport,
	dockerTransportOf,
	judgedRemote,
	sshTransportOf,
} from "./suite/judged-remote.js";

// The remote round trips of one judged write, edit and apply_patch (safety layer and checkpoints
// on, in a git repository whose config includes a file): each costs a remote `sh` (and a network
// round trip on a real remote), so they are counted, not timed. Before the git config was read in
// one round trip and the hash came with the stat: write 17, edit 16, apply_patch of two files 40.
// Now 10, 9 and 25 when the answers fetched together are used (within 25 ms: see MetadataCache);
// the limits allow for a loaded machine where none is.

const limits = { write: 14, edit: 13, apply_patch: 31 };
const config = "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../extra.gitconfig\n";

let sshd: SshdFixture | undefined;
let sshSkip: string | undefined;
const local = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-trips-")));
beforeAll(async () => {
	({ sshd, skipReason: sshSkip } = await startSshdOrSkip());
	mkdirSync(join(local, "ws", ".git"), { recursive: true });
	writeFileSync(join(local, "ws", ".git", "config"), config);
	writeFileSync(join(local, "ws", "a.txt"), "alpha\n");
}, 30_000);
afterAll(async () => {
	await sshd?.stop();
	rmSync(local, { recursive: true, force: true });
});
const container = useTestContainer("toolbelt-trips", "round-trip counts", (name) =>
	inContainer(name, "mkdir -p /work/ws/.git && cat > /work/ws/.git/config && echo alpha > /work/ws/a.txt", config),
);

const backends = [
	{ name: "ssh", skip: () => sshSkip, transport: () => sshTransportOf(sshd as SshdFixture), folder: join(local, "ws") },
	{
		name: "docker",
		skip: () => container.skipReason,
		transport: () => dockerTransportOf(container.name),
		folder: "/work/ws",
	},
];

for (const backend of backends) {
	describe(`judged writes on a ${backend.name} workspace`, () => {
		it("a write, an edit and an apply_patch of two files cost at most 14, 13 and 31 round trips", async (context) => {
			const reason = backend.skip();
			if (reason) return context.skip(reason);
			const transport: CountingTransport = countingTransport(backend.transport());
			const { workspace, call } = await judgedRemote(transport, backend.folder);
			const counted = async (name: keyof typeof limits, args: Record<string, unknown>) => {
				transport.reset();
				const result = await call(name, args);
				expect(result.isError, result.text).toBe(false);
				return transport.roundTrips();
			};
			try {
				// The first write of a session finds the repository and starts the channel: not counted.
				await call("write", { path: "w.txt", content: "zero\n" });
				const trips = {
					write: await counted("write", { path: "w.txt", content: "one\n" }),
					edit: await counted("edit", { path: "a.txt", old_string: "alpha", new_string: "beta" }),
					apply_patch: await counted("apply_patch", {
						patch:
							"*** Begin Patch\n*** Update File: a.txt\n@@\n-beta\n+gamma\n*** Add File: p.txt\n+new\n*** End Patch\n",
					}),
				};
				console.log(`${backend.name} round trips per judged call: ${JSON.stringify(trips)}`);
				for (const name of Object.keys(limits) as (keyof typeof limits)[]) {
					expect(trips[name], name).toBeGreaterThan(0);
					expect(trips[name], name).toBeLessThanOrEqual(limits[name]);
				}
			} finally {
				await workspace.close();
			}
		}, 120_000);
	});
}
