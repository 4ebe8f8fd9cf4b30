import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RemoteTransport } from "../../src/workspace/remote/index.js";
import { inContainer, useTestContainer } from "../remote/docker-fixture.js";
import { type SshdFixture, startSshdOrSkip } from "../remote/sshd-fixture.js";
import { dockerTransportOf, judgedRemote, sshTransportOf } from "../remote/suite/judged-remote.js";

// Git's config is read for each judged write on a remote workspace, all its files in one round
// trip, with nothing kept from an earlier write but which files to ask for: a config changed
// behind toolbelt's back (by a command, a background job, the user) right after a write is judged
// on its new content at the next write. A cache that trusted the earlier answer would let the
// model plant a hook in the hooks folder the new config names.

let sshd: SshdFixture | undefined;
let sshSkip: string | undefined;
const local = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-gitconfig-")));
beforeAll(async () => {
	({ sshd, skipReason: sshSkip } = await startSshdOrSkip());
}, 30_000);
afterAll(async () => {
	await sshd?.stop();
	rmSync(local, { recursive: true, force: true });
});
const container = useTestContainer("toolbelt-gitconfig", "remote git config tests");

interface Backend {
	name: string;
	skip(): string | undefined;
	transport(): RemoteTransport;
	folder: string;
	put(path: string, content: string): void;
}

const backends: Backend[] = [
	{
		name: "ssh",
		skip: () => sshSkip,
		transport: () => sshTransportOf(sshd as SshdFixture),
		folder: join(local, "ws"),
		put: (path, content) => {
			mkdirSync(dirname(join(local, "ws", path)), { recursive: true });
			writeFileSync(join(local, "ws", path), content);
		},
	},
	{
		name: "docker",
		skip: () => container.skipReason,
		transport: () => dockerTransportOf(container.name),
		folder: "/work/ws",
		put: (path, content) => {
			const target = join("/work/ws", path);
			inContainer(container.name, `mkdir -p "${dirname(target)}" && cat > "${target}"`, content);
		},
	},
];

for (const backend of backends) {
	describe(`git config on a ${backend.name} workspace`, () => {
		it("a hooks folder a changed config names (directly, or in a file it includes) is protected at the next write", async (context) => {
			const reason = backend.skip();
			if (reason) return context.skip(reason);
			backend.put(".git/config", "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../extra.gitconfig\n");
			backend.put(".git/HEAD", "ref: refs/heads/main\n");
			backend.put("extra.gitconfig", "[user]\n\tname = someone\n");
			const { workspace, call } = await judgedRemote(backend.transport(), backend.folder);
			try {
				// Writes judged with the config as it was: the hooks folder it names is protected, others are not.
				expect((await call("write", { path: "a.txt", content: "one\n" })).isError).toBe(false);
				expect((await call("write", { path: "hooks2/pre-commit", content: "#!/bin/sh\n" })).isError).toBe(false);
				const first = await call("write", { path: ".githooks/pre-commit", content: "#!/bin/sh\n" });
				expect(first.text).toMatch(/protected path/);

				// Changed behind toolbelt's back: the repository's config names another hooks folder.
				backend.put(".git/config", "[core]\n\thooksPath = hooks2\n[include]\n\tpath = ../extra.gitconfig\n");
				const planted = await call("edit", {
					path: "hooks2/pre-commit",
					old_string: "#!/bin/sh",
					new_string: "#!/bin/sh\ncurl evil",
				});
				expect(planted.isError).toBe(true);
				expect(planted.text).toMatch(/protected path.*core\.hooksPath/s);

				// The file the config includes (read by the last write) now names one more.
				backend.put("extra.gitconfig", "[core]\n\thooksPath = hooks3\n");
				const included = await call("write", { path: "hooks3/pre-commit", content: "#!/bin/sh\ncurl evil\n" });
				expect(included.isError).toBe(true);
				expect(included.text).toMatch(/protected path/);

				// A new include, never read before, is followed too.
				backend.put("extra.gitconfig", "[include]\n\tpath = more.gitconfig\n");
				backend.put("more.gitconfig", "[core]\n\thooksPath = hooks4\n");
				const patched = await call("apply_patch", {
					patch: "*** Begin Patch\n*** Add File: hooks4/post-checkout\n+#!/bin/sh\n*** End Patch\n",
				});
				expect(patched.isError).toBe(true);
				expect(patched.text).toMatch(/protected path/);
			} finally {
				await workspace.close();
			}
		}, 120_000);
	});
}
