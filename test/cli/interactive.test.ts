import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
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

// Each case drives a whole session through several turns, each step waited for with its own timeout
// (up to 15 s): on a loaded machine the sum exceeds the default test timeout.
describe.skipIf(!TmuxTerminal.available())(
	"interactive session in a real terminal (tmux)",
	{ timeout: 120_000 },
	() => {
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

		/** `extraFlags` default to `--mode yolo`: tests of rendering should not stop at permission prompts. */
		function startSession(baseUrl: string, extraFlags: string[] = ["--mode", "yolo"]): TmuxTerminal {
			const binary = ensureBuiltCli();
			const flags = ["--provider", "openai", "--base-url", baseUrl, "--model", "scripted-model", ...extraFlags];
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
			// Well before the 31.7 s sleep would end by itself, with room for a loaded machine.
			expect(Date.now() - cancelledAt).toBeLessThan(15_000);
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
		it("asks before a command: always adds the rule and stops asking, no refuses, Ctrl-C refuses and cancels", async () => {
			server = await startSseServer([
				{ events: bashCall("call_1", "echo approved >> log.txt") },
				{ events: text("Ran it once.") },
				{ events: bashCall("call_2", "echo approved >> log.txt") },
				{ events: text("Ran it again.") },
				{ events: bashCall("call_3", "echo other >> log.txt") },
				{ events: text("It was declined.") },
				{ events: bashCall("call_4", "echo third >> log.txt") },
			]);
			terminal = startSession(server.openaiBaseUrl, []);
			const session = terminal;
			await session.waitFor(/mode default/);
			await session.waitFor(/^›\s*$/m);

			session.type("first");
			session.press("Enter");
			const asked = await session.waitFor(
				/Allow\? yes · no · always \(adds bash\(echo approved >> log\.txt\) to \.toolbelt\/settings\.json\)/,
			);
			expect(asked).toMatch(/\? bash: echo approved >> log\.txt\n\s+commands need approval in default mode/);
			session.type("a");
			await session.waitFor(/Ran it once\./);
			const settingsFile = join(tempDir(), ".toolbelt", "settings.json");
			const settings = JSON.parse(await readFile(settingsFile, "utf8"));
			expect(settings.permissions.allow).toEqual(["bash(echo approved >> log.txt)"]);

			// The identical call runs without a question.
			session.type("again");
			session.press("Enter");
			const again = await session.waitFor(/Ran it again\./);
			expect(again.match(/Allow\?/g)).toHaveLength(1);
			expect(await readFile(join(tempDir(), "log.txt"), "utf8")).toBe("approved\napproved\n");

			// n refuses: the command does not run and the model is told.
			session.type("other");
			session.press("Enter");
			await session.waitFor(/\? bash: echo other >> log\.txt/);
			session.type("n");
			const declined = await session.waitFor(/It was declined\./);
			expect(declined).toMatch(/● bash echo other >> log\.txt {2}✗ declined/);
			expect(server.requests[5]?.body.messages.at(-1).content).toContain("The user declined this bash call");

			// Ctrl-C at the question refuses the call and cancels the turn.
			session.type("third");
			session.press("Enter");
			await session.waitFor(/\? bash: echo third >> log\.txt/);
			session.press("C-c");
			await session.waitFor(/Cancelled\.\n+›\s*$/);
			expect(await readFile(join(tempDir(), "log.txt"), "utf8")).toBe("approved\napproved\n");
			expect(server.requests).toHaveLength(7);

			session.press("C-d");
			const final = await session.waitFor(/\[exit 0\]/);
			if (process.env.TOOLBELT_SHOW_SCREEN) console.log(final);
		});
		it("asks once whether to trust the folder's settings, showing what they enable; a changed file asks again", async () => {
			const repo = join(tempDir(), "repo");
			const home = join(tempDir(), "home");
			const marker = join(tempDir(), "hook-ran");
			await mkdir(join(repo, ".toolbelt"), { recursive: true });
			await mkdir(home);
			const settingsFile = join(repo, ".toolbelt", "settings.json");
			const settings = {
				hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] },
				permissions: { allow: ["bash(*)"] },
			};
			await writeFile(settingsFile, JSON.stringify(settings));
			server = await startSseServer([
				{ events: bashCall("call_1", "echo hi >> log.txt") },
				{ events: text("It was declined.") },
				{ events: bashCall("call_2", "echo hi >> log.txt") },
				{ events: text("Ran it.") },
			]);
			const flags = ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "scripted-model"];
			const start = () =>
				TmuxTerminal.start({
					command: [process.execPath, ensureBuiltCli(), ...flags],
					cwd: repo,
					env: cleanEnv({ HOME: home }),
				});

			// Not trusted: the hook and the allow rule are ignored, so bash asks and no hook runs.
			terminal = start();
			const asked = await terminal.waitFor(/trust \(until the file changes\) · session only · no/);
			expect(asked).toContain(`hooks.PreToolUse: touch ${marker} (every tool)`);
			expect(asked).toContain("permissions.allow: bash(*)");
			terminal.type("n");
			await terminal.waitFor(/not trusted[\s\S]*mode default[\s\S]*^›\s*$/m);
			terminal.type("go");
			terminal.press("Enter");
			await terminal.waitFor(/Allow\? yes · no · always \(for this session\)/);
			terminal.type("n");
			await terminal.waitFor(/It was declined\./);
			expect(existsSync(marker)).toBe(false);
			terminal.press("C-d");
			await terminal.waitFor(/\[exit 0\]/);
			terminal.close();

			// Trusted: the allow rule runs bash unasked, the hook runs, and the answer is recorded (0600).
			terminal = start();
			await terminal.waitFor(/session only · no/);
			terminal.type("t");
			await terminal.waitFor(/trusted[\s\S]*^›\s*$/m);
			terminal.type("go");
			terminal.press("Enter");
			const ran = await terminal.waitFor(/Ran it\./);
			expect(ran).not.toContain("Allow?");
			expect(existsSync(marker)).toBe(true);
			expect(await readFile(join(repo, "log.txt"), "utf8")).toBe("hi\n");
			expect((await stat(join(home, ".toolbelt", "trusted-folders.json"))).mode & 0o777).toBe(0o600);
			terminal.press("C-d");
			await terminal.waitFor(/\[exit 0\]/);
			terminal.close();

			// The same file: no question. A changed file: asked again.
			terminal = start();
			const again = await terminal.waitFor(/mode default[\s\S]*^›\s*$/m);
			expect(again).not.toContain("Trust this folder");
			terminal.press("C-d");
			await terminal.waitFor(/\[exit 0\]/);
			terminal.close();
			await writeFile(settingsFile, JSON.stringify({ ...settings, permissions: { allow: ["bash(*)", "write(**)"] } }));
			terminal = start();
			const changed = await terminal.waitFor(/session only · no/);
			expect(changed).toContain("permissions.allow: write(**)");
			terminal.press("C-c");
			await terminal.waitFor(/not trusted[\s\S]*^›\s*$/m);
			terminal.press("C-d");
			await terminal.waitFor(/\[exit 0\]/);
		});
	},
);
