import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstSourceFd, openBindSources } from "../../src/safety/sandbox/bind-sources.js";
import { SandboxUnavailableError } from "../../src/safety/sandbox.js";
import { useTempDir } from "../helpers/temp-dir.js";

describe.skipIf(process.platform !== "linux")("openBindSources", () => {
	const tempDir = useTempDir();

	it("opens each path once per step, for bwrap from descriptor 20 on, reachable through /proc until closed", () => {
		const root = tempDir();
		mkdirSync(join(root, "sub"));
		writeFileSync(join(root, "file"), "x");
		const paths = [root, join(root, "sub"), join(root, "file"), root];
		const sources = openBindSources(paths);
		try {
			expect(sources.fds).toEqual([0, 1, 2, 3].map((index) => firstSourceFd + index));
			expect(sources.reads.map((read) => readlinkSync(read.path))).toEqual(paths);
		} finally {
			sources.close();
		}
		expect(() => readlinkSync(sources.reads[0]?.path ?? "")).toThrow();
	});

	it("refuses a link at the path or on the way, and a FIFO, with nothing left open", () => {
		const root = tempDir();
		mkdirSync(join(root, "real"));
		symlinkSync("real", join(root, "link"));
		execFileSync("mkfifo", [join(root, "fifo")]);
		const openBefore = readdirSync("/proc/self/fd").length;
		for (const path of [join(root, "link"), join(root, "link", "x"), join(root, "fifo"), join(root, "gone")]) {
			if (path.endsWith("x")) mkdirSync(join(root, "real", "x"), { recursive: true });
			expect(() => openBindSources([root, path])).toThrow(SandboxUnavailableError);
		}
		expect(readdirSync("/proc/self/fd").length).toBe(openBefore);
	});
});
