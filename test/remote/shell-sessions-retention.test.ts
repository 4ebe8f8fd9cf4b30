import { describe, expect, it } from "vitest";
import {
	MAX_RETAINED_OUTPUT_BYTES,
	MAX_RETAINED_OUTPUT_FILES,
} from "../../src/workspace/local/process/background-registry.js";
import { type KeptFileOwner, KeptFiles } from "../../src/workspace/remote/shell/kept-files.js";

// The bookkeeping behind the remote retention bound (the sessions against a real sshd are in
// shell-sessions.test.ts): the same limits as the local tool, oldest first, never a live file.

const GiB = 1024 ** 3;
const open: KeptFileOwner = { exited: false, removedItsFiles: false };

describe("the kept files of a remote workspace", () => {
	it("share the local limits", () => {
		expect([MAX_RETAINED_OUTPUT_FILES, MAX_RETAINED_OUTPUT_BYTES]).toEqual([20, 2 * GiB]);
	});

	it("stay within 2 GiB: the oldest go first, never a file background jobs still write, never the newest", () => {
		const kept = new KeptFiles();
		expect(kept.add({ path: "/t/live", bytes: GiB, owner: open, live: true })).toEqual([]);
		expect(kept.add({ path: "/t/a", bytes: GiB / 2, owner: open, live: false })).toEqual([]);
		expect(kept.add({ path: "/t/b", bytes: GiB / 2, owner: open, live: false })).toEqual([]);
		expect(kept.add({ path: "/t/c", bytes: GiB / 4, owner: open, live: false })).toEqual(["/t/a"]);
		// Alone over the limit: everything else that may go goes, the newest stays.
		expect(kept.add({ path: "/t/huge", bytes: 3 * GiB, owner: open, live: false })).toEqual(["/t/b", "/t/c"]);
	});

	it("name the files no open session will remove, and those still left once the sessions closed", () => {
		const kept = new KeptFiles();
		const dropped: KeptFileOwner = { exited: true, removedItsFiles: false };
		const ended: KeptFileOwner = { exited: true, removedItsFiles: true };
		kept.add({ path: "/t/dropped", bytes: 1, owner: dropped, live: false });
		kept.add({ path: "/t/ended", bytes: 1, owner: ended, live: false });
		kept.add({ path: "/t/once", bytes: 1, owner: undefined, live: false });
		kept.add({ path: "/t/open", bytes: 1, owner: open, live: false });
		expect(kept.orphans()).toEqual(["/t/dropped", "/t/once"]);
		// The orphans went through a session that then ended in order; the open one never said so.
		expect(kept.leftAfterClose(["/t/dropped", "/t/once"], ended)).toEqual(["/t/open"]);
		expect(kept.orphans()).toEqual([]);
	});
});
