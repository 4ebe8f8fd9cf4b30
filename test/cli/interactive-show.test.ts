import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openAIStream, type SseServer, startSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";
import { TmuxTerminal } from "./helpers/tmux.js";

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

	function startSession(baseUrl: string, extraFlags: string[] = ["--mode", "yolo"]): TmuxTerminal {
		const flags = ["--provider", "openai", "--base-url", baseUrl, "--model", "first-model", "--no-record"];
		const env = cleanEnv();
		delete env.NO_COLOR;
		return TmuxTerminal.start({
			command: [process.execPath, ensureBuiltCli(), ...flags, ...extraFlags],
			cwd: tempDir(),
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
});
