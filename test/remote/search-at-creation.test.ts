import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { createExecTransport, createRemoteWorkspace } from "../../src/workspace/remote/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { textOf, writeTree } from "../tools/search/fixtures.js";
import { countingTransport } from "./suite/judged-remote.js";

/**
 * A search tool's creation starts the local search's first shell ahead (`prepareAtCreation`); a
 * remote workspace's search prepares its own start as a listing's folder is resolved, so creating
 * tools on it reaches the remote side not at all. The "remote" here is this machine through an exec
 * transport (`/usr/bin/env sh -c …`), whose round trips are counted.
 */
describe("search tools on a remote workspace", () => {
	const dir = useTempDir();

	it("reach the remote side only once a call runs", async () => {
		await writeTree(dir(), { "src/a.ts": "needle here\n", "b.txt": "nothing\n" });
		const transport = countingTransport(
			createExecTransport({ label: "exec://this-machine", program: "/usr/bin/env", prefix: [] }),
		);
		const workspace = createRemoteWorkspace(transport, dir());
		try {
			const grep = createGrepTool(dir(), { workspace });
			const find = createFindTool(dir(), { workspace });
			// A start made at creation would be under way by now (the remote look-up is one process away).
			await new Promise((resolve) => setTimeout(resolve, 500));
			expect(transport.roundTrips()).toBe(0);

			expect(textOf(await grep.execute("g", { pattern: "needle" }, undefined))).toContain("src/a.ts:1");
			expect(transport.roundTrips()).toBeGreaterThan(0);
			expect(textOf(await find.execute("f", { pattern: "**/*.ts" }, undefined))).toContain(join("src", "a.ts"));
		} finally {
			await workspace.close();
		}
	});
});
