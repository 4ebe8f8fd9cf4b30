import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { cgroupsAvailable } from "../../../src/workspace/local/process/cgroup.js";
import { localShellOperations } from "../../../src/workspace/local/shell/local-operations.js";
import { standbyShellStarts } from "../../../src/workspace/local/shell/standby-shell.js";
import { useTempDir } from "../../helpers/temp-dir.js";

afterEach(async () => {
	await disposeShellProcesses();
});

// The sandbox hands bwrap its seccomp program this way, without a shell of its own in between.
describe.skipIf(process.platform === "win32")("files opened on descriptors for the command", () => {
	const tempDir = useTempDir();
	const request = (cwd: string, file: string) => ({
		file: "/bin/bash",
		args: ["-c", "cat <&9; echo; cat <&8"],
		cwd,
		env: { ...process.env } as Record<string, string>,
		timeoutMs: 30_000,
		readDescriptors: [
			{ fd: 9, path: file },
			{ fd: 8, path: join(cwd, "second file's name") },
		],
	});

	it("are there in a fresh shell, in a standby shell and without an output file", async () => {
		const cwd = tempDir();
		const file = join(cwd, "program");
		writeFileSync(file, "nine");
		writeFileSync(join(cwd, "second file's name"), "eight");
		expect(localShellOperations.opensDescriptors).toBe(true);
		const before = standbyShellStarts();
		for (let call = 0; call < 3; call++) {
			const output = join(cwd, `out-${call}`);
			const descriptor = openSync(output, "a");
			try {
				const result = await localShellOperations.execToFile?.(request(cwd, file), descriptor);
				expect(result?.exitCode).toBe(0);
			} finally {
				closeSync(descriptor);
			}
			expect(readFileSync(output, "utf8")).toBe("nine\neight");
		}
		// From the second command on, a standby shell in the same folder starts it (where cgroups are).
		if (cgroupsAvailable()) expect(standbyShellStarts()).toBeGreaterThan(before);
		const chunks: Buffer[] = [];
		const piped = await localShellOperations.exec({
			...request(cwd, file),
			onData: (chunk) => void chunks.push(chunk),
		});
		expect(piped.exitCode).toBe(0);
		expect(Buffer.concat(chunks).toString()).toBe("nine\neight");
	});

	it("a file that cannot be opened ends the start with status 126, the command never runs", async () => {
		const cwd = tempDir();
		const chunks: Buffer[] = [];
		const missing = { ...request(cwd, join(cwd, "missing")), args: ["-c", "echo ran"] };
		const result = await localShellOperations.exec({ ...missing, onData: (chunk) => void chunks.push(chunk) });
		expect(result.exitCode).toBe(126);
		expect(Buffer.concat(chunks).toString()).not.toContain("ran");
	});
});
