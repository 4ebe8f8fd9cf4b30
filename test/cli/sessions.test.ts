import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { createMemoryIO } from "./helpers/memory-io.js";

const API_KEY = "sk-proj-TESTKEYabcdefghijklmnopqrstuvwxyz012345";

describe("recorded sessions: run records, sessions lists, --resume and --continue continue", () => {
	const tempDir = useTempDir();
	const server = useSseServer();
	const modelFlags = () => ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "test-model"];

	async function folders() {
		const project = join(tempDir(), "project");
		const home = join(tempDir(), "home");
		await mkdir(project, { recursive: true });
		await mkdir(home, { recursive: true });
		await writeFile(join(project, "notes.txt"), "buy milk\n");
		return { project, home, env: { HOME: home, OPENAI_API_KEY: API_KEY } };
	}

	it("records a run (the key a command printed is not in the file), lists it, and resumes it with its history", async () => {
		const { project, home, env } = await folders();
		server.push(
			{
				events: openAIStream([
					{ toolCall: { index: 0, id: "call_1", name: "read", arguments: '{"path":"notes.txt"}' } },
					{
						toolCall: {
							index: 1,
							id: "call_2",
							name: "bash",
							arguments: JSON.stringify({ command: `echo ${API_KEY}` }),
						},
					},
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "You need milk." }, { finish: "stop" }]) },
		);
		const first = createMemoryIO({ cwd: project, env });
		const flags = [...modelFlags(), "--allow", "bash(echo:*)"];
		expect(await main(["run", ...flags, "What do I need?"], first.io)).toBe(0);

		const sessionsDir = join(home, ".local", "state", "toolbelt", "sessions");
		const files = await readdir(sessionsDir);
		expect(files).toHaveLength(1);
		const path = join(sessionsDir, files[0] as string);
		expect((await stat(path)).mode & 0o777).toBe(0o600);
		const text = await readFile(path, "utf8");
		expect(text).toContain("buy milk");
		expect(text).not.toContain(API_KEY);
		const id = (files[0] as string).replace(/\.jsonl$/, "");

		const list = createMemoryIO({ cwd: project, env });
		expect(await main(["sessions"], list.io)).toBe(0);
		expect(list.stdout()).toContain(id);
		expect(list.stdout()).toContain('"What do I need?"');
		expect(list.stdout()).toMatch(/1 turn · 2 calls/);
		const elsewhere = createMemoryIO({ cwd: home, env });
		expect(await main(["sessions"], elsewhere.io)).toBe(0);
		expect(elsewhere.stdout()).not.toContain(id);

		// Replayed in place: the files are as recorded, the key the command prints is redacted alike.
		const replay = createMemoryIO({ cwd: project, env });
		expect(await main(["replay", id], replay.io)).toBe(0);
		expect(replay.stdout()).toMatch(/Replayed 2 of 2 calls in 1 batches .*: no divergence/);
		await writeFile(join(project, "notes.txt"), "buy bread\n");
		const diverged = createMemoryIO({ cwd: project, env });
		expect(await main(["replay", id], diverged.io)).toBe(1);
		expect(diverged.stdout()).toContain(`${join(project, "notes.txt")} was 9 bytes`);
		await writeFile(join(project, "notes.txt"), "buy milk\n");

		server.push({ events: openAIStream([{ text: "Still milk." }, { finish: "stop" }]) });
		const resumed = createMemoryIO({ cwd: project, env });
		expect(await main(["run", ...modelFlags(), "--resume", id.slice(0, 17), "And now?"], resumed.io)).toBe(0);
		const request = server.requests[2]?.body as { messages: { role: string; content: unknown }[] };
		const contents = request.messages.map((message) => `${message.role}:${JSON.stringify(message.content)}`);
		expect(contents.some((line) => line.includes("What do I need?"))).toBe(true);
		expect(contents.some((line) => line.startsWith("tool:") && line.includes("buy milk"))).toBe(true);
		expect(contents.at(-1)).toContain("And now?");
		// The resumed turns join the same file.
		expect(await readdir(sessionsDir)).toHaveLength(1);
		expect(await readFile(path, "utf8")).toContain("And now?");

		// A newer session quit before its first prompt (an interactive start left at once) is passed over.
		const { openSessionRecorder } = await import("../../src/sessions/index.js");
		const unused = await openSessionRecorder({
			env,
			homeDir: home,
			workspaceFolders: [project],
			source: "interactive",
			cwd: project,
			model: { provider: "openai", id: "test-model" },
		});
		unused.recorder?.close();
		expect(await readdir(sessionsDir)).toHaveLength(2);
		server.push({ events: openAIStream([{ text: "Yes." }, { finish: "stop" }]) });
		const continued = createMemoryIO({ cwd: project, env });
		expect(await main(["run", ...modelFlags(), "--continue", "Sure?"], continued.io)).toBe(0);
		const last = server.requests[3]?.body as { messages: { content: unknown }[] };
		expect(JSON.stringify(last.messages)).toContain("And now?");
	});

	it("records nothing with --no-record, and says why when the sessions folder is not private", async () => {
		const { project, home, env } = await folders();
		server.push({ events: openAIStream([{ text: "Hi" }, { finish: "stop" }]) });
		const quiet = createMemoryIO({ cwd: project, env });
		expect(await main(["run", ...modelFlags(), "--no-record", "hello"], quiet.io)).toBe(0);
		await expect(readdir(join(home, ".local", "state", "toolbelt", "sessions"))).rejects.toThrow();

		const open = join(tempDir(), "open-state");
		await mkdir(join(open, "toolbelt", "sessions"), { recursive: true, mode: 0o777 });
		const { chmod } = await import("node:fs/promises");
		await chmod(join(open, "toolbelt", "sessions"), 0o777);
		server.push({ events: openAIStream([{ text: "Hi" }, { finish: "stop" }]) });
		const refused = createMemoryIO({ cwd: project, env: { ...env, XDG_STATE_HOME: open } });
		expect(await main(["run", ...modelFlags(), "hello"], refused.io)).toBe(0);
		expect(refused.stderr()).toMatch(/not this user's own private folder/);
		expect(await readdir(join(open, "toolbelt", "sessions"))).toEqual([]);
	});
});
