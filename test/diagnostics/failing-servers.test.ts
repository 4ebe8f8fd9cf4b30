// Servers that hang or crash (a test double speaking LSP framing, fixtures/fake-server.mjs): a
// hang gives "pending" once the budget is spent, a crash is restarted a bounded number of times.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiagnosticsSession, type LanguageServerSpec } from "../../src/diagnostics/index.js";
import { processTree, stillRunning } from "./server-processes.js";

const fakeServer = fileURLToPath(new URL("./fixtures/fake-server.mjs", import.meta.url));
const fake = (mode: string, extension: string): LanguageServerSpec => ({
	name: `fake-${mode}`,
	command: [process.execPath, fakeServer, mode],
	extensions: [extension],
});
const TIMEOUT_MS = 120_000;

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(join(tmpdir(), "toolbelt-"));
});
afterAll(async () => {
	await rm(dir, { recursive: true, force: true });
});

describe("a language server that does not answer", () => {
	it(
		"gives 'diagnostics pending' when it never sends diagnostics, and ends with the session",
		async () => {
			const session = createDiagnosticsSession({
				root: dir,
				builtIn: [fake("silent-diagnostics", ".quiet")],
				budgetMs: 300,
			});
			try {
				const path = join(dir, "a.quiet");
				await session.ready(path);
				const outcome = await session.afterChange([{ path, display: "a.quiet", before: undefined, after: "text\n" }]);
				expect(outcome.files).toEqual([
					{ path: "a.quiet", server: "fake-silent-diagnostics", status: "pending", introduced: [] },
				]);
				expect(outcome.notes).toEqual([
					"[diagnostics] a.quiet: diagnostics pending (the fake-silent-diagnostics language server did not answer within 0.3 s); a later change of this file may report them.",
				]);
				const tree = processTree(session.serverPids()[0] ?? -1);
				await session.dispose();
				expect(stillRunning(tree)).toEqual([]);
			} finally {
				await session.dispose();
			}
		},
		TIMEOUT_MS,
	);

	it(
		"gives 'pending' while the server has not answered initialize",
		async () => {
			const session = createDiagnosticsSession({ root: dir, builtIn: [fake("silent-start", ".mute")], budgetMs: 300 });
			try {
				const path = join(dir, "b.mute");
				const outcome = await session.afterChange([{ path, display: "b.mute", before: "a\n", after: "b\n" }]);
				expect(outcome.files[0]).toMatchObject({
					status: "pending",
					note: "the fake-silent-start language server is starting",
				});
			} finally {
				await session.dispose();
			}
		},
		TIMEOUT_MS,
	);
});

describe("a language server that crashes", () => {
	it(
		"is started again after a crash, at most maxRestarts times, then reported unavailable once",
		async () => {
			const session = createDiagnosticsSession({
				root: dir,
				builtIn: [fake("crash", ".boom")],
				budgetMs: 60_000,
				maxRestarts: 1,
			});
			try {
				const path = join(dir, "c.boom");
				const change = { path, display: "c.boom", before: undefined, after: "x\n" };
				const first = await session.afterChange([change]);
				expect(first.files[0]).toMatchObject({ status: "pending" });
				// Started again: it crashes again.
				const second = await session.afterChange([change]);
				expect(second.files[0]).toMatchObject({ status: "pending" });
				const third = await session.afterChange([change]);
				expect(third.files[0]).toMatchObject({ status: "unavailable" });
				expect(third.notes[0]).toMatch(
					/^\[diagnostics\] c\.boom: not checked, the fake-crash language server is unavailable \(it failed 2 times; last: it exited \(code 3\)\)\.$/,
				);
				// Said once; later changes are quietly not checked.
				expect(await session.afterChange([change])).toEqual({ notes: [], files: [] });
				expect(session.serverPids()).toEqual([]);
			} finally {
				await session.dispose();
			}
		},
		TIMEOUT_MS,
	);
});
