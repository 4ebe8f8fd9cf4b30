// A session file is read back by `toolbelt sessions`, resume, replay and export. What lies in the
// sessions folder in its place is read with bounds: a FIFO made `toolbelt sessions` wait forever
// for a writer, and a link to /dev/zero grew one line until node crashed (635 MB). Now a FIFO,
// device or link is refused at once, and a file larger than the recorder ever writes is not read.
import { execFileSync } from "node:child_process";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { readSessionFile, SessionStore } from "../../src/sessions/index.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { useTempDir } from "../helpers/temp-dir.js";

const dir = useTempDir();

/** A store with one good session, and `name.jsonl` made by `make`. */
function storeWith(make: (path: string) => void) {
	const stateDir = join(dir(), "state");
	const store = SessionStore.open({ stateDir });
	const good = store.create("20261205-090000-aaaaaa");
	good.append(JSON.stringify({ type: "session", id: good.id, cwd: "/w", startedAt: 1, source: "run" }));
	good.close();
	const odd = store.pathOf("20261205-100000-bbbbbb");
	make(odd);
	return { stateDir, odd };
}

const odd: [string, (path: string) => void, RegExp][] = [
	["a FIFO", (path) => execFileSync("mkfifo", [path]), /not a regular file/],
	["a link to /dev/zero", (path) => symlinkSync("/dev/zero", path), /link/],
	[
		"a 1 GB file",
		(path) => {
			writeFileSync(path, "", { mode: 0o600 });
			truncateSync(path, 2 ** 30);
		},
		/1\.0 GB.*more than/,
	],
];

describe("a session file that is not one the recorder wrote", () => {
	it.each(odd)(
		"%s is refused by readSessionFile at once",
		async (_name, make, message) => {
			const { odd: path } = storeWith(make);
			await expect(readSessionFile(path)).rejects.toThrow(message);
		},
		10_000,
	);

	it.each(odd)(
		"%s is skipped by toolbelt sessions, which lists the rest",
		async (_name, make) => {
			const { stateDir } = storeWith(make);
			const { io, stdout } = createMemoryIO({ cwd: dir(), env: { XDG_STATE_HOME: stateDir } });
			const code = await main(["sessions", "--all"], io);
			expect(code).toBe(0);
			expect(stdout()).toContain("20261205-090000-aaaaaa");
		},
		10_000,
	);
});
