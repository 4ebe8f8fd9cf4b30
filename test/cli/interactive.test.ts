import { execFileSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openAIStream, type SseServer, startSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";
import { TmuxTerminal } from "./helpers/tmux.js";

const bashCall = (id: string, command: string) =>
	openAIStream([
		{ toolCall: { index: 0, id, name: "bash", arguments: JSON.stringify({ command }) } },
		{ finish: "tool_calls" },
	]);
const text = (reply: string) => openAIStream([{ text: reply }, { finish: "stop" }]);

describe.skipIf(!TmuxTerminal.available())("interactive session in a real terminal (tmux)", () => {
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

	function startSession(baseUrl: string): TmuxTerminal {
		const binary = ensureBuiltCli();
		const flags = ["--provider", "openai", "--base-url", baseUrl, "--model", "scripted-model"];
		const env = cleanEnv();
		delete env.NO_COLOR;
		return TmuxTerminal.start({ command: [process.execPath, binary, ...flags], cwd: tempDir(), env });
	}

	it("streams replies, shows tool calls with spinner and outcome, cancels with Ctrl-C, exits with Ctrl-D", async () => {
		server = await startSseServer([
			{
				events: openAIStream([
					{ text: "Running the tests." },
					{ finish: "stop" },
					{ usage: { prompt_tokens: 1200, completion_tokens: 34 } },
				]),
			},
			{ events: bashCall("call_1", "sleep 1.6; echo ok") },
			{ events: text("All tests pass.") },
			{ events: bashCall("call_2", "exit 3") },
			{ events: text("It failed with exit code 3.") },
			{ events: bashCall("call_3", "sleep 31.7") },
		]);
		terminal = startSession(server.openaiBaseUrl);
		const session = terminal;
		await session.waitFor(/toolbelt \S+ · openai scripted-model/);
		await session.waitFor(/^›\s*$/m);

		// A plain reply streams in.
		session.type("hello");
		session.press("Enter");
		// The reply streams in, then a dim line with the prompt's token usage and time.
		await session.waitFor(/Running the tests\.\n1200 in · 34 out · \d+\.\d s/);

		// A long call: spinner with elapsed time, then ✓ and its duration.
		session.type("run the tests");
		session.press("Enter");
		await session.waitFor(/● bash sleep 1\.6; echo ok {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d\.\d s/);
		const done = await session.waitFor(/All tests pass\./);
		expect(done).toMatch(/● bash sleep 1\.6; echo ok {2}✓ \d+\.\d s/);

		// A failing call shows its exit code.
		session.type("break it");
		session.press("Enter");
		const failed = await session.waitFor(/It failed with exit code 3\./);
		expect(failed).toMatch(/● bash exit 3 {2}✗ exit 3/);

		// Ctrl-C cancels the running turn, not the program.
		session.type("wait a while");
		session.press("Enter");
		await session.waitFor(/● bash sleep 31\.7 {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
		const cancelledAt = Date.now();
		session.press("C-c");
		const cancelled = await session.waitFor(/Cancelled\.\n+›\s*$/);
		expect(Date.now() - cancelledAt).toBeLessThan(5000);
		expect(cancelled).toMatch(/● bash sleep 31\.7 {2}✗ cancelled/);
		// The shell command itself was killed, not just abandoned.
		expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain("sleep 31.7");
		expect(cancelled).not.toContain("[exit");

		// Ctrl-C at an empty prompt only explains how to leave.
		session.press("C-c");
		await session.waitFor(/\(Ctrl-D or \/exit to leave\)/);

		// History: Up recalls the last prompt.
		session.press("Up");
		await session.waitFor(/› wait a while$/);
		session.press("C-u");

		session.press("C-d");
		const final = await session.waitFor(/\[exit 0\]/);
		if (process.env.TOOLBELT_SHOW_SCREEN) console.log(final);
		expect(server.requests).toHaveLength(6);
		// The cancelled call still got its result, so the transcript stays valid.
		expect(server.requests[5]?.body.messages.at(-1)).toMatchObject({ role: "user", content: "wait a while" });
	});

	it("shows a transient waiting line, cancels a silent or streaming reply with Ctrl-C, and keeps going", async () => {
		server = await startSseServer([
			{ events: openAIStream([], { done: false }), hang: true },
			{ events: openAIStream([{ text: "Let me think about" }], { done: false }), hang: true },
			{ events: text("Second answer.") },
		]);
		terminal = startSession(server.openaiBaseUrl);
		const session = terminal;
		await session.waitFor(/^›\s*$/m);
		session.type("silent");
		session.press("Enter");
		await session.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the model · \d+\.\d s/);
		session.press("C-c");
		const afterSilent = await session.waitFor(/Cancelled\.\n+›\s*$/);
		expect(afterSilent).not.toContain("waiting for the model");

		session.type("first");
		session.press("Enter");
		await session.waitFor(/Let me think about/);
		session.press("C-c");
		await session.waitFor(/Let me think about\n+Cancelled\./);
		session.type("second");
		session.press("Enter");
		await session.waitFor(/Second answer\./);
		session.type("/exit");
		session.press("Enter");
		await session.waitFor(/\[exit 0\]/);
		// Each cancelled turn left a valid transcript: the next request carries all three prompts.
		const contents = server.requests[2]?.body.messages
			.filter((message: { role: string }) => message.role === "user")
			.map((message: { content: string }) => message.content);
		expect(contents).toEqual(["silent", "first", "second"]);
	});
});
