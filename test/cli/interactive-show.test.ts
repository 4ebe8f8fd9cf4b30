import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { openAIStream, type SseServer, startSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";
import { createMemoryIO } from "./helpers/memory-io.js";
import { TmuxTerminal } from "./helpers/tmux.js";

const call = (id: string, name: string, args: Record<string, unknown>) =>
	openAIStream([{ toolCall: { index: 0, id, name, arguments: JSON.stringify(args) } }, { finish: "tool_calls" }]);
const text = (reply: string) => openAIStream([{ text: reply }, { finish: "stop" }]);

// The interactive CLI shows what it does: the model switch, diffs and previews, multi-line input.
// Each case drives one session through several steps, each waited for with its own timeout.
describe.skipIf(!TmuxTerminal.available())("interactive session: what it shows (tmux)", { timeout: 120_000 }, () => {
	const tempDir = useTempDir();
	let server: SseServer | undefined;
	let terminal: TmuxTerminal | undefined;
	beforeAll(() => {
		ensureBuiltCli();
	});
	afterEach(async () => {
		terminal?.close();
		terminal = undefined;
		await server?.close();
		server = undefined;
	});

	/** `home`: record sessions in that home folder (default: nothing is recorded). */
	function startSession(baseUrl: string, extraFlags: string[] = ["--mode", "yolo"], home?: string): TmuxTerminal {
		const flags = ["--provider", "openai", "--base-url", baseUrl, "--model", "first-model"];
		const env = cleanEnv(home ? { HOME: home } : {});
		delete env.NO_COLOR;
		return TmuxTerminal.start({
			command: [process.execPath, ensureBuiltCli(), ...flags, ...(home ? [] : ["--no-record"]), ...extraFlags],
			cwd: home ? join(tempDir(), "project") : tempDir(),
			env,
		});
	}

	it("/model switches the model of the next request and /model names it", async () => {
		server = await startSseServer([{ events: text("From the first.") }, { events: text("From the second.") }]);
		terminal = startSession(server.openaiBaseUrl);
		const session = terminal;
		await session.waitFor(/^›\s*$/m);
		session.type("one");
		session.press("Enter");
		await session.waitFor(/From the first\./);
		session.type("/model second-model");
		session.press("Enter");
		await session.waitFor(/Model switched to openai second-model\./);
		session.type("/model");
		session.press("Enter");
		await session.waitFor(/Model openai second-model\./);
		session.type("two");
		session.press("Enter");
		await session.waitFor(/From the second\./);
		session.press("C-d");
		await session.waitFor(/\[exit 0\]/);
		expect(server.requests.map((request) => request.body.model)).toEqual(["first-model", "second-model"]);
		// The conversation went on: the second request carries the first prompt too.
		expect(server.requests[1]?.body.messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(2);
	});

	it("the approval question shows a write's lines, an edit's removed and added lines, a whole command and a replacing write's diff against the disk, bounded", async () => {
		const content = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join("\n");
		const edited = content.replace("line 2\nline 3", "two\nthree");
		server = await startSseServer([
			{ events: call("call_1", "write", { path: "notes.txt", content: `${content}\n` }) },
			{ events: call("call_2", "edit", { path: "notes.txt", old_string: "line 2\nline 3", new_string: "two\nthree" }) },
			{ events: call("call_3", "bash", { command: "touch first-part\nseq 1 5" }) },
			{ events: call("call_4", "write", { path: "notes.txt", content: `${edited.replace("line 10", "ten")}\n` }) },
			{ events: text("All done.") },
		]);
		terminal = startSession(server.openaiBaseUrl, []);
		const session = terminal;
		await session.waitFor(/^›\s*$/m);
		session.type("go");
		session.press("Enter");
		const write = await session.waitFor(/Allow\?/);
		expect(write).toMatch(/\+ line 1\n\s+\+ line 2\n/);
		expect(write).toMatch(/\+ line 12\n\s+… 8 more lines/);
		expect(write).not.toContain("+ line 13");
		session.type("y");
		const edit = await session.waitFor(/- line 2\n\s+- line 3\n\s+\+ two\n\s+\+ three\n\s+file changes need approval/);
		expect(edit).toContain("? edit");
		session.type("y");
		const bash = await session.waitFor(/\$ touch first-part\n\s+\$ seq 1 5\n\s+commands need approval/);
		expect(bash).toContain("? bash");
		session.type("y");
		// The file on disk (after the edit) against the new content: one changed line with its context, not 20 `+` lines.
		const replace = await session.waitFor(
			/ {4}line 9\n\s+- line 10\n\s+\+ ten\n\s+line 11\n\s+file changes need approval/,
		);
		expect(replace.slice(replace.lastIndexOf("? write"))).not.toContain("+ line 1\n");
		session.type("y");
		const done = await session.waitFor(/All done\./);
		// Each finished call shows a preview under its line: the edit's diff (bounded), the command's last lines.
		expect(done).toMatch(
			/edit notes\.txt +✓[^\n]*\n +line 1\n +- line 2\n +- line 3\n +\+ two\n +\+ three\n +line 4\n +… \d+ more lines?\n/,
		);
		expect(done).toMatch(/bash touch first-part seq 1 5 +✓[^\n]*\n +3\n +4\n +5\n/);
		session.press("C-d");
		await session.waitFor(/\[exit 0\]/);
	});

	it("a pasted 20-line block is one prompt, Alt-Enter and a trailing \\ add lines, and text typed during a turn is queued", async () => {
		const block = Array.from({ length: 20 }, (_, index) => `${index % 2 === 0 ? "  " : ""}pasted line ${index + 1}`);
		server = await startSseServer([
			{ events: text("Got the paste.") },
			{ events: text("Got three lines.") },
			// The turn waits for a file the test makes: keys are typed while it surely runs.
			{ events: call("call_1", "bash", { command: "while [ ! -e go ]; do sleep 0.1; done; echo went" }) },
			{ events: text("Barrier passed.") },
			{ events: text("Queued answered.") },
			{ events: text("Unfinished answered.") },
		]);
		terminal = startSession(server.openaiBaseUrl);
		const session = terminal;
		await session.waitFor(/^›\s*$/m);
		session.paste(`${block.join("\n")}\n`);
		await session.waitFor(/› \[paste #1, 20 lines\]/);
		session.press("Enter");
		await session.waitFor(/Got the paste\./);

		session.type("first");
		session.press("M-Enter");
		session.type("second\\");
		session.press("Enter");
		await session.waitFor(/… second\\\n…\s*$/);
		session.type("third");
		session.press("Enter");
		await session.waitFor(/Got three lines\./);

		session.type("wait for the file");
		session.press("Enter");
		await session.waitFor(/● bash while/);
		session.type("queued one");
		session.press("Enter");
		await session.waitFor(/queued › queued one/);
		session.type("unfinished");
		await writeFile(join(tempDir(), "go"), "");
		await session.waitFor(/› queued one {2}\(queued\)\n[\s\S]*Queued answered\./);
		// The line typed but not ended waits in the editor, to be edited or sent.
		await session.waitFor(/› unfinished$/m);
		session.press("Enter");
		await session.waitFor(/Unfinished answered\./);
		session.press("C-d");
		await session.waitFor(/\[exit 0\]/);

		const prompts = server.requests.map((request) => request.body.messages.at(-1));
		expect(prompts[0]).toMatchObject({ role: "user", content: block.join("\n") });
		expect(prompts[1]).toMatchObject({ role: "user", content: "first\nsecond\nthird" });
		expect(prompts[4]).toMatchObject({ role: "user", content: "queued one" });
		expect(prompts[5]).toMatchObject({ role: "user", content: "unfinished" });
		expect(server.requests).toHaveLength(6);
	});

	it("/resume lists this folder's sessions and continues one: the model gets its messages, its file goes on", async () => {
		server = await startSseServer([{ events: text("Noted: alpha.") }, { events: text("It was alpha.") }]);
		const home = join(tempDir(), "home");
		const project = join(tempDir(), "project");
		await mkdir(home);
		await mkdir(project);
		// The earlier session: a recorded run in the same folder, in process.
		const earlier = createMemoryIO({ cwd: project, env: { HOME: home } });
		const runFlags = ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "first-model"];
		expect(await main(["run", ...runFlags, "remember alpha"], earlier.io)).toBe(0);
		const sessionsDir = join(home, ".local", "state", "toolbelt", "sessions");
		const [file] = await readdir(sessionsDir);
		const id = String(file).replace(/\.jsonl$/, "");

		terminal = startSession(server.openaiBaseUrl, ["--mode", "yolo"], home);
		const session = terminal;
		await session.waitFor(/^›\s*$/m);
		session.type("/resume");
		session.press("Enter");
		const list = await session.waitFor(/Continue one: \/resume N/);
		expect(list).toMatch(new RegExp(` 1  ${id}  \\S+ \\S+  run  1 turn · 0 calls\\n +"remember alpha"`));
		session.type("/resume 1");
		session.press("Enter");
		await session.waitFor(new RegExp(`Resumed ${id} \\(1 turn, first prompt "remember alpha"\\)`));
		session.type("what was it");
		session.press("Enter");
		await session.waitFor(/It was alpha\./);
		session.press("C-d");
		await session.waitFor(/\[exit 0\]/);

		const messages = server.requests[1]?.body.messages.map((m: { role: string; content: unknown }) => [
			m.role,
			m.content,
		]);
		expect(messages.slice(1)).toEqual([
			["user", "remember alpha"],
			["assistant", "Noted: alpha."],
			["user", "what was it"],
		]);
		// One file: the resumed one went on, the new session left before its first prompt is gone.
		expect(await readdir(sessionsDir)).toEqual([file]);
		expect(await readFile(join(sessionsDir, String(file)), "utf8")).toContain("what was it");
	});
});
