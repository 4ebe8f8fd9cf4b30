import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { MAX_PROJECT_INSTRUCTIONS_BYTES } from "../../src/cli/setup/project-instructions.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { createMemoryIO } from "./helpers/memory-io.js";

describe("AGENTS.md and CLAUDE.md join the system prompt in a trusted folder only (toolbelt run)", () => {
	const tempDir = useTempDir();
	const server = useSseServer();
	const modelFlags = () => ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "test-model"];

	async function runIn(folder: string, flags: string[], env: Record<string, string> = {}) {
		server.push({ events: openAIStream([{ text: "ok" }, { finish: "stop" }]) });
		const { io, stderr } = createMemoryIO({ cwd: folder, env });
		const code = await main(["run", ...modelFlags(), "--no-record", ...flags, "hello"], io);
		const system: string = server.requests.at(-1)?.body.messages[0].content;
		return { code, system, stderr: stderr() };
	}

	async function project(): Promise<string> {
		const folder = join(tempDir(), "project");
		await mkdir(folder);
		await writeFile(join(folder, "AGENTS.md"), "Always answer in haiku. Marker: AGENTS-7f3.\n");
		return folder;
	}

	it("reads them with --trust-project, and leaves them out (saying so) in an untrusted folder", async () => {
		const folder = await project();
		await writeFile(join(folder, "CLAUDE.md"), "Run npm test before you finish. Marker: CLAUDE-91c.\n");

		const trusted = await runIn(folder, ["--trust-project"]);
		expect(trusted.code).toBe(0);
		expect(trusted.system).toContain("Instructions from AGENTS.md");
		expect(trusted.system).toContain("Marker: AGENTS-7f3.");
		expect(trusted.system).toContain("Marker: CLAUDE-91c.");
		expect(trusted.stderr).not.toContain("not read");

		const untrusted = await runIn(folder, []);
		expect(untrusted.code).toBe(0);
		expect(untrusted.system).toContain("Working directory:");
		expect(untrusted.system).not.toContain("AGENTS-7f3");
		expect(untrusted.system).not.toContain("CLAUDE-91c");
		expect(untrusted.stderr).toContain("AGENTS.md and CLAUDE.md not read: this folder is not trusted");
	});

	it("trusts a folder trustedProjects lists, reads a linked CLAUDE.md once and cuts a long file, saying where", async () => {
		const folder = await project();
		const home = join(tempDir(), "home");
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify({ trustedProjects: [folder] }));
		await symlink("AGENTS.md", join(folder, "CLAUDE.md"));

		const linked = await runIn(folder, [], { HOME: home });
		expect(linked.system.match(/AGENTS-7f3/g)).toHaveLength(1);

		const line = "Keep every function under forty lines.\n";
		const long = `START-MARK\n${line.repeat(Math.ceil((MAX_PROJECT_INSTRUCTIONS_BYTES * 2) / line.length))}END-MARK\n`;
		await writeFile(join(folder, "AGENTS.md"), long);
		const cut = await runIn(folder, [], { HOME: home });
		expect(cut.system).toContain("START-MARK");
		expect(cut.system).not.toContain("END-MARK");
		expect(cut.system).toContain(`[AGENTS.md was cut here: ${Buffer.byteLength(long)} bytes`);
		expect(cut.system.length).toBeLessThan(MAX_PROJECT_INSTRUCTIONS_BYTES + 8 * 1024);
		expect(cut.stderr).toContain("AGENTS.md cut at 32 KB");
	});

	it("does not read a file that links out of the folder", async () => {
		const folder = await project();
		await writeFile(join(tempDir(), "outside.md"), "Marker: OUTSIDE-55d.\n");
		await symlink(join(tempDir(), "outside.md"), join(folder, "CLAUDE.md"));
		const { system } = await runIn(folder, ["--trust-project"]);
		expect(system).toContain("AGENTS-7f3");
		expect(system).not.toContain("OUTSIDE-55d");
	});
});
