import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { connectStdio, processesMatching, textOf, waitFor } from "./helpers.js";

describe("background jobs through toolbelt mcp", () => {
	const tempDir = useTempDir();

	it("starts, polls, sends input, kills; a job alive at disconnect dies", async () => {
		const needle = `jobs-e2e-${randomUUID()}`;
		const session = await connectStdio(["--cwd", tempDir()]);
		try {
			const names = (await session.client.listTools()).tools.map((tool) => tool.name);
			expect(names).toEqual(expect.arrayContaining(["bash", "bash_output", "bash_kill"]));
			const reader = `python3 -u -c "# ${needle}-reader
import sys
for line in sys.stdin: print('echo:', line.strip(), flush=True)"`;
			const started = await session.client.callTool({
				name: "bash",
				arguments: { command: reader, run_in_background: true },
			});
			expect(started.isError).toBeFalsy();
			const id =
				(started.structuredContent as { jobId?: string } | undefined)?.jobId ?? /job-\d+/.exec(textOf(started))?.[0];
			expect(id).toMatch(/^job-\d+$/);
			let seen = "";
			const polled = await session.client.callTool({
				name: "bash_output",
				arguments: { id, input: "ping\n", wait_seconds: 5 },
			});
			seen += textOf(polled);
			for (let round = 0; round < 5 && !seen.includes("echo: ping"); round++) {
				seen += textOf(await session.client.callTool({ name: "bash_output", arguments: { id, wait_seconds: 2 } }));
			}
			expect(seen).toContain("echo: ping");
			expect(processesMatching(`${needle}-reader`).length).toBe(1);
			// A client's cancel of a wait cancels only the wait.
			const controller = new AbortController();
			const waiting = session.client
				.callTool({ name: "bash_output", arguments: { id, wait_seconds: 30 } }, undefined, {
					signal: controller.signal,
				})
				.catch((error: unknown) => error);
			setTimeout(() => controller.abort(), 200);
			await waiting;
			expect(processesMatching(`${needle}-reader`).length).toBe(1);
			const killed = await session.client.callTool({ name: "bash_kill", arguments: { id } });
			expect(textOf(killed)).toContain(`Killed ${id}`);
			await waitFor(() => processesMatching(`${needle}-reader`).length === 0, 5000);
			// One left alive when the client goes away.
			const alive = await session.client.callTool({
				name: "bash",
				arguments: {
					command: `setsid sh -c 'sleep 300; echo ${needle}-orphan' & sleep 300; echo ${needle}-alive`,
					run_in_background: true,
				},
			});
			expect(alive.isError).toBeFalsy();
			await waitFor(() => processesMatching(needle).length >= 2, 5000);
		} finally {
			await session.client.close();
		}
		await waitFor(() => processesMatching(needle).length === 0, 10_000);
	}, 60_000);
});
