import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { connectStdio, processesMatching, type StdioSession, textOf } from "../mcp/helpers.js";

function parentOf(pid: number): number | undefined {
	try {
		return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
	} catch {
		return undefined;
	}
}

// A guard of the ripgrep launcher (src/tools/search/ripgrep-launcher.ts): from a process's second
// search on, ripgrep's command line goes to a waiting bash as a script. A pattern, path or glob
// written as shell syntax must reach ripgrep as one argument and run nothing, through the
// server exactly as a user starts it (several calls in one process, so the launcher is used).

const hostile = (marker: string) => [
	`'; touch ${marker}; '`,
	`$(touch ${marker})`,
	`\`touch ${marker}\``,
	`"; touch ${marker}; "`,
	`x\ntouch ${marker}\n`,
	`\\'; touch ${marker} #`,
];

describe.skipIf(process.platform !== "linux")("the ripgrep launcher runs no shell syntax from a call", () => {
	const dir = useTempDir();
	let session: StdioSession | undefined;
	afterEach(async () => {
		await session?.client.close();
		session = undefined;
	});

	it("gives each hostile pattern to ripgrep as text, and creates no file", async () => {
		const marker = join(dir(), "pwned");
		await writeFile(join(dir(), "a.txt"), `${hostile(marker).join("\n")}\nplain line\n`);
		session = await connectStdio(["--cwd", dir()]);
		const call = async (args: Record<string, unknown>) =>
			textOf(await session?.client.callTool({ name: "grep", arguments: args }));
		// The process's first two searches start ripgrep directly; the launcher serves the rest.
		expect(await call({ pattern: "plain" })).toMatch(/^a\.txt:\d+: plain line$/);
		expect(await call({ pattern: "plain" })).toMatch(/^a\.txt:\d+: plain line$/);
		for (const pattern of hostile(marker)) {
			await call({ pattern, literal: true });
			await call({ pattern });
			expect(existsSync(marker)).toBe(false);
			await call({ pattern: "plain", include: pattern });
			await call({ pattern: "plain", exclude: pattern });
			expect(existsSync(marker)).toBe(false);
		}
		expect(await call({ pattern: "touch", literal: true })).toContain("a.txt:1: '; touch");
		expect(existsSync(marker)).toBe(false);
		// The searches above went through the server's launcher (a bash child of the server).
		const server = session.transport.pid;
		const launchers = processesMatching("toolbelt_bytes").filter((pid) => parentOf(pid) === server);
		expect(launchers.length).toBeGreaterThan(0);
	});
});
