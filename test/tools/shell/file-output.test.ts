import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../../src/tools/bash.js";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { requiredInCi } from "../../helpers/prerequisites.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { runTool } from "./run-tool.js";
import {
	eventually,
	isAlive,
	isOutputRelay,
	killMarked,
	newMarker,
	processGroupMembers,
	processGroupOf,
} from "./survivors.js";

const markers: string[] = [];
afterEach(async () => {
	await disposeShellProcesses();
	for (const marker of markers.splice(0)) killMarked(marker);
});

function marked() {
	const created = newMarker();
	markers.push(created.marker);
	return created;
}

/** This process's output files in the temp folder. */
function ownOutputFiles(): string[] {
	return readdirSync(tmpdir()).filter((name) => name.startsWith(`toolbelt-shell-${process.pid}-`));
}

const linux = process.platform === "linux";
/** perl waits for any child (`wait()`); Debian ships it in every install, so CI must have it. */
const hasPerl = !requiredInCi("perl", existsSync("/usr/bin/perl") ? undefined : "no /usr/bin/perl");

describe("bash on the local executor: output straight into a file", () => {
	const tempDir = useTempDir();

	it.runIf(hasPerl)(
		"gives the command no child of toolbelt's own to wait for (the relay's short-lived starter)",
		async () => {
			// A program that waits for any child (`setsid -w`, a `wait()` loop) must not reap the
			// process that started the relay: perl's wait() returns -1 when there is no child at all.
			for (let run = 0; run < 3; run++) {
				const outcome = await runTool(createBashTool(tempDir()), { command: "exec perl -e 'print wait(), \"\\n\"'" });
				expect(outcome.text).toBe("-1");
			}
		},
	);

	it("leaves no file behind when the output fits", async () => {
		const before = ownOutputFiles();
		const outcome = await runTool(createBashTool(tempDir()), { command: "echo small; echo err >&2" });
		expect(outcome.text).toBe("small\nerr");
		// No file of this call is left: compared by name, since an earlier call's file may be removed
		// meanwhile (its clean-up finishing late on a loaded machine).
		expect(ownOutputFiles().filter((name) => !before.includes(name))).toEqual([]);
	});

	it("keeps the full-output file a snapshot while a background job goes on writing", async () => {
		const { env } = marked();
		const outcome = await runTool(createBashTool(tempDir(), { env }), {
			command: "seq 1 5000; (sleep 0.3; while :; do echo LATE; sleep 0.05; done) &",
		});
		const path = outcome.details.fullOutputPath ?? "";
		expect(outcome.details.truncation.originalLines).toBe(5000);
		expect(outcome.details.backgroundPids.length).toBeGreaterThan(0);
		await new Promise((resolve) => setTimeout(resolve, 600));
		expect(readFileSync(path).equals(execFileSync("seq", ["1", "5000"]))).toBe(true);
	});

	it.runIf(linux)("keeps a background job's ongoing output from growing without bound", async () => {
		const { env } = marked();
		// After the call has ended, the job writes 3 MB and then waits; the relay copies it into the output file.
		const outcome = await runTool(createBashTool(tempDir(), { env }), {
			command: "(sleep 0.2; head -c 3000000 /dev/zero; sleep 30) & echo started",
		});
		expect(outcome.text).toContain("started");
		const [job] = outcome.details.backgroundPids;
		expect(job).toBeDefined();
		// The relay shares the command's process group; a standby's started before the command's
		// variables were set, so it carries none of them (the marker included).
		const [relay] = processGroupMembers(processGroupOf(job as number) ?? -1).filter(isOutputRelay);
		expect(relay).toBeDefined();
		const fileSize = () => statSync(`/proc/${relay}/fd/1`).size;
		expect(await eventually(() => fileSize() >= 3_000_000, 3000)).toBe(true);
		// Emptied within a few seconds, while the job lives on (no broken pipe, no blocking).
		expect(await eventually(() => fileSize() === 0, 4000)).toBe(true);
		expect(isAlive(job as number)).toBe(true);
	});

	it("keeps what a command writes while a timeout stops it", async () => {
		const outcome = await runTool(createBashTool(tempDir()), {
			command: "echo start; trap 'echo cleaning up; exit 1' TERM; sleep 5 & wait",
			timeout: 0.5,
		});
		expect(outcome.details.timedOut).toBe(true);
		expect(outcome.text).toContain("start\ncleaning up");
	});

	it("waits for the relay to copy the end of a long command's output", async () => {
		const { env } = marked();
		for (const command of ["sleep 1.2; seq 1 200000", "sleep 30 & sleep 1.2; seq 1 200000"]) {
			const outcome = await runTool(createBashTool(tempDir(), { env }), { command });
			expect(outcome.details.truncation.originalLines).toBe(200000);
			expect(outcome.text.split("\n\n")[0]?.endsWith("\n200000")).toBe(true);
		}
	});

	it.runIf(hasPerl)("lets a command wait for all its children: the relay is none of them", async () => {
		const outcome = await runTool(createBashTool(tempDir()), {
			command: `perl -e 'fork or exit; 1 while wait() != -1; print "done\\n"'`,
			timeout: 10,
		});
		expect(outcome.ms).toBeLessThan(3000);
		expect(outcome.text).toBe("done");
	});

	it("hands BASH_ENV and POSIXLY_CORRECT (even empty) to the command unchanged", async () => {
		const startup = join(tempDir(), "startup.sh");
		writeFileSync(startup, "echo from-startup\n");
		const withStartup = await runTool(createBashTool(tempDir(), { env: { BASH_ENV: startup } }), {
			command: `echo "B=$BASH_ENV saved=\${TOOLBELT_SAVED_BASH_ENV-none}"`,
		});
		expect(withStartup.text).toBe(`from-startup\nB=${startup} saved=none`);
		const posix = await runTool(createBashTool(tempDir(), { env: { POSIXLY_CORRECT: "" } }), {
			command: `echo "P=\${POSIXLY_CORRECT-unset}"; echo b > /dev/stdout`,
		});
		expect(posix.text).toBe("P=\nb");
	});

	it("gives the command a real pipe, so /dev/stdout and /dev/stderr append instead of truncating", async () => {
		const outcome = await runTool(createBashTool(tempDir()), {
			command: "echo a; echo b > /dev/stdout; echo c | tee /dev/stderr; echo d >> /dev/stderr",
		});
		expect(outcome.text).toBe("a\nb\nc\nc\nd");
	});
});
