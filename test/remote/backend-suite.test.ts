import { describe, expect, it } from "vitest";
import { openCase, type SuiteCase } from "./suite/case-context.js";
import { fileCases } from "./suite/cases-files.js";
import { searchCases } from "./suite/cases-search.js";
import { shellCases } from "./suite/cases-shell.js";
import { undoCases } from "./suite/cases-undo.js";
import { useSuiteBackends } from "./suite/disks.js";

// The backend suite: every tool runs the same cases on four backends — this machine's disk, a
// workspace in memory, ssh (a real sshd whose sessions see a folder of their own at the
// workspace's path) and docker (a real container) — each on a disk of its own. After each case,
// every other disk must be as it was, this machine's disk at the remote folders' paths included:
// a tool that fell back to the local disk would write there.

const suite = useSuiteBackends();
const cases: SuiteCase[] = [...fileCases, ...searchCases, ...shellCases, ...undoCases];

for (const backend of suite.backends) {
	describe(`the ${backend.name} backend`, () => {
		cases.forEach((suiteCase, index) => {
			it(suiteCase.name, async (context) => {
				const reason = backend.skipReason();
				if (reason) return context.skip(reason);
				const others = [...suite.disks()].filter(([name]) => name !== backend.name);
				const before = others.map(([name, disk]) => [name, disk.snapshot()] as const);
				const t = await openCase(backend, `case-${index + 1}`, suite.stateDir());
				// The other disks are checked also when the case failed: a write gone astray says where it went.
				const failure = await suiteCase.run(t).then(
					() => undefined,
					(error: unknown) => error,
				);
				for (const [name, snapshot] of before) {
					const disk = others.find(([other]) => other === name)?.[1];
					expect.soft(disk?.snapshot(), `${name} changed during a ${backend.name} case`).toEqual(snapshot);
				}
				if (failure) throw failure;
			}, 120_000);
		});
	});
}
