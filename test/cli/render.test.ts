import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AssistantMessage } from "../../src/agent/types.js";
import { EventRenderer } from "../../src/cli/render/event-renderer.js";
import { createStyle } from "../../src/cli/render/style.js";
import { ToolCallsView } from "../../src/cli/render/tool-calls-view.js";
import { failureLabel, fitWidth, summarizeToolArguments } from "../../src/cli/render/tool-line.js";
import { formatTurnSummary } from "../../src/cli/render/turn-summary.js";
import { formatDuration } from "../../src/engine/truncate.js";

function sink(): { stream: Writable; text: () => string } {
	let text = "";
	return {
		stream: new Writable({
			write(chunk, _encoding, callback) {
				text += chunk.toString();
				callback();
			},
		}),
		text: () => text,
	};
}

const plain = createStyle(false);

/** The final screen after `output`: a minimal terminal for the sequences the views use. */
function screenOf(output: string): { lines: string[]; maxUp: number } {
	const rows: string[] = [""];
	let row = 0;
	let maxUp = 0;
	const pattern = /\x1b\[(\d*)([FKJ])|\r|\n|[^\x1b\r\n]+/g;
	for (const match of output.matchAll(pattern)) {
		const [token, count, command] = match;
		if (command === "F") {
			maxUp = Math.max(maxUp, Number(count));
			row -= Number(count);
			if (row < 0) throw new Error("moved above the top of the output");
		} else if (command === "K") rows[row] = "";
		else if (command === "J") {
			// Erase to the end of the screen; the views only do this at the start of a row.
			rows[row] = "";
			rows.splice(row + 1);
		} else if (token === "\n") {
			row++;
			rows[row] ??= "";
		} else if (token !== "\r") rows[row] = (rows[row] ?? "") + token;
	}
	return { lines: rows.slice(0, rows.length - (rows.at(-1) === "" ? 1 : 0)), maxUp };
}

describe("tool lines", () => {
	it("summarizes arguments as a person would type them", () => {
		expect(summarizeToolArguments("bash", { command: "npm  test\n  -- --watch=false" })).toBe(
			"npm test -- --watch=false",
		);
		expect(summarizeToolArguments("read", { path: "src/a.ts", offset: 120 })).toBe("src/a.ts:120");
		expect(summarizeToolArguments("edit", { path: "a.ts", edits: [{}, {}] })).toBe("a.ts (2 edits)");
		expect(summarizeToolArguments("grep", { pattern: "TODO", path: "src", include: "*.ts" })).toBe(
			'"TODO" in src (*.ts)',
		);
		expect(summarizeToolArguments("ls", {})).toBe(".");
		expect(summarizeToolArguments("server__lookup", { id: 7 })).toBe('{"id":7}');
		expect(summarizeToolArguments("bash", { command: "echo \x1b[31mred" })).toBe("echo [31mred");
	});

	it("formats durations and failure labels", () => {
		expect(formatDuration(2345)).toBe("2.3 s");
		expect(formatDuration(125_000)).toBe("2 m 05 s");
		expect(failureLabel({ content: [{ type: "text", text: "x" }], details: { exitCode: 1 } })).toBe("exit 1");
		expect(failureLabel({ content: [], details: { exitCode: null, timedOut: true } })).toBe("timed out");
		expect(failureLabel({ content: [{ type: "text", text: "File not found: a.ts\nUse ls." }] })).toBe(
			"File not found: a.ts",
		);
		const validation = 'Validation failed for tool "read":\n  - path: is required\n\nReceived arguments:\n{}';
		expect(failureLabel({ content: [{ type: "text", text: validation }] })).toBe(
			'Validation failed for tool "read": - path: is required',
		);
		expect(failureLabel({ content: [{ type: "text", text: 'Tool "bash" was cancelled: the run was aborted.' }] })).toBe(
			"cancelled",
		);
	});

	it("fits text to a width, counting wide characters twice", () => {
		expect(fitWidth("abcdef", 6)).toBe("abcdef");
		expect(fitWidth("abcdefg", 6)).toBe("abcde…");
		expect(fitWidth("漢字漢字", 5)).toBe("漢字…");
	});
});

describe("ToolCallsView", () => {
	it("prints one finished line per call when not live", () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: false, style: plain });
		view.start("1", "bash", { command: "npm test" });
		view.start("2", "read", { path: "a.ts" });
		expect(output.text()).toBe("");
		view.end("2", { result: { content: [] }, isError: false, durationMs: 40 });
		view.end("1", { result: { content: [], details: { exitCode: 1 } }, isError: true, durationMs: 2300 });
		expect(output.text()).toBe("● read a.ts  ✓ 0.0 s\n● bash npm test  ✗ exit 1 · 2.3 s\n");
	});

	it("redraws running calls in place with a spinner, elapsed time and the latest output", async () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: true, style: plain, tickMs: 20, columns: () => 80 });
		view.start("1", "bash", { command: "npm test" });
		view.start("2", "grep", { pattern: "x" });
		view.update("1", { content: [{ type: "text", text: "PASS a.test.ts\nPASS b.test.ts\n" }] });
		await new Promise((resolve) => setTimeout(resolve, 1100));
		view.end("2", { result: { content: [] }, isError: false, durationMs: 10 });
		view.end("1", { result: { content: [] }, isError: false, durationMs: 1200 });
		const text = output.text();
		expect(text).toContain("\x1b[2F"); // moves up over the two lines to redraw them
		expect(text).toMatch(/● bash npm test {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 1\.\d s {2}PASS b\.test\.ts/);
		expect(text.endsWith('\x1b[2F\x1b[2K● bash npm test  ✓ 1.2 s\n\x1b[2K● grep "x"  ✓ 0.0 s\n')).toBe(true);
		expect(screenOf(text).lines).toEqual(["● bash npm test  ✓ 1.2 s", '● grep "x"  ✓ 0.0 s']);
		// Finished: the spinner stops (no more writes).
		const length = text.length;
		await new Promise((resolve) => setTimeout(resolve, 60));
		expect(output.text().length).toBe(length);
		view.dispose();
	});

	it("steps aside for a question: pause erases the block and draws nothing, resume draws it below", async () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: true, style: plain, tickMs: 10, columns: () => 80 });
		view.start("1", "bash", { command: "sleep 1" });
		view.start("2", "write", { path: "a.txt" });
		view.pause();
		const paused = output.text().length;
		output.stream.write("? write a.txt\n  Allow? yes\n");
		view.end("1", { result: { content: [] }, isError: false, durationMs: 300 });
		await new Promise((resolve) => setTimeout(resolve, 50));
		// Nothing but the question was written while paused: no spinner frames, no finished line.
		expect(output.text().slice(paused)).toBe("? write a.txt\n  Allow? yes\n");
		view.resume();
		view.end("2", { result: { content: [] }, isError: false, durationMs: 20 });
		view.dispose();
		expect(screenOf(output.text()).lines).toEqual([
			"? write a.txt",
			"  Allow? yes",
			"● bash sleep 1  ✓ 0.3 s",
			"● write a.txt  ✓ 0.0 s",
		]);
	});

	it("labels the safety layer's refusals in a word", () => {
		const label = (text: string) => failureLabel({ content: [{ type: "text", text }] });
		expect(label("Permission required: this write call needs the user's approval …")).toBe("needs approval");
		expect(label("Permission denied: this bash call was not run because …")).toBe("denied by a rule or mode");
		expect(label("The user declined this bash call (bash: ls). It was not run.")).toBe("declined");
		expect(label("Access denied: read may not touch /etc/passwd, because it is outside the workspace (/p).")).toBe(
			"outside the workspace",
		);
	});

	it("keeps the live block small when a model starts many calls at once", () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: true, style: plain, columns: () => 80 });
		for (let index = 0; index < 14; index++) view.start(String(index), "read", { path: `f${index}.ts` });
		for (let index = 13; index >= 0; index--) {
			view.end(String(index), { result: { content: [] }, isError: false, durationMs: 100 * index });
		}
		view.dispose();
		const { lines: screen, maxUp } = screenOf(output.text());
		expect(maxUp).toBeLessThanOrEqual(10);
		expect(screen).toHaveLength(14);
		for (let index = 0; index < 14; index++) {
			expect(screen.filter((line) => line.startsWith(`● read f${index}.ts  ✓`))).toHaveLength(1);
		}
	});

	it("draws at most maxLiveLines calls live; the others print a line when they end", () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: true, style: plain, maxLiveLines: 2 });
		for (let index = 0; index < 5; index++) view.start(String(index), "read", { path: `f${index}.ts` });
		for (let index = 4; index >= 0; index--) {
			view.end(String(index), { result: { content: [] }, isError: false, durationMs: 100 });
		}
		view.dispose();
		const { lines: screen, maxUp } = screenOf(output.text());
		expect(maxUp).toBeLessThanOrEqual(2);
		expect(screen).toHaveLength(5);
	});

	it("shows the elapsed time of a running call from showElapsedAfterMs on", () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: true, style: plain, showElapsedAfterMs: 0 });
		view.start("1", "bash", { command: "npm test" });
		expect(output.text()).toMatch(/● bash npm test {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 0\.0 s/);
		view.dispose();
	});

	it("keeps every line within the terminal width", () => {
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: false, style: plain, columns: () => 40 });
		view.start("1", "bash", { command: `echo ${"x".repeat(200)}` });
		view.end("1", { result: { content: [] }, isError: false, durationMs: 1000 });
		const line = output.text().trimEnd();
		expect(Array.from(line).length).toBeLessThanOrEqual(39);
		expect(line).toMatch(/… {2}✓ 1\.0 s$/);
	});

	it("shows under a sandboxed call where its command connected: refused first, one line, bounded", () => {
		const connection = (host: string, port: number, extra: Record<string, unknown> = {}) => ({
			host,
			port,
			via: "http",
			allowed: true,
			rule: host,
			bytesSent: 100,
			bytesReceived: 1900,
			...extra,
		});
		const network = [
			connection("registry.test", 4873),
			connection("registry.test", 4873, { bytesReceived: 2_000_000 }),
			connection("evil.test", 80, {
				allowed: false,
				rule: "evil.test",
				reason: 'evil.test:80 is denied by "evil.test" in sandbox.network.deny',
				bytesSent: 0,
				bytesReceived: 0,
			}),
			connection("other.test\u001b[2J", 443, {
				allowed: false,
				rule: undefined,
				reason: "other.test:443 is not in sandbox.network.allow: add …",
			}),
			...Array.from({ length: 500 }, (_, index) => connection(`host${index}.test`, 443)),
		];
		const output = sink();
		const view = new ToolCallsView({ stream: output.stream, live: true, style: plain, columns: () => 200 });
		view.start("1", "bash", { command: "npm install" });
		view.start("2", "read", { path: "a.ts" });
		view.end("1", { result: { content: [], details: { exitCode: 0, network } }, isError: false, durationMs: 900 });
		view.end("2", { result: { content: [] }, isError: false, durationMs: 10 });
		view.dispose();
		const { lines: screen } = screenOf(output.text());
		expect(screen).toEqual([
			"● bash npm install  ✓ 0.9 s",
			'  network: ✗ evil.test:80 refused (denied by "evil.test") · ✗ other.test[2J:443 refused (not in sandbox.network.allow) · ✓ registry.test:4873 ×2 2.0 MB · ✓ host0.test:443 2.0 kB · +499 more',
			"● read a.ts  ✓ 0.0 s",
		]);
		// A call without connections (or not sandboxed) keeps its one line; a narrow terminal cuts the line.
		const narrow = sink();
		const small = new ToolCallsView({ stream: narrow.stream, live: false, style: plain, columns: () => 40 });
		small.start("1", "bash", { command: "ls" });
		small.end("1", { result: { content: [], details: { network: [] } }, isError: false, durationMs: 5 });
		small.start("2", "bash", { command: "curl" });
		small.end("2", { result: { content: [], details: { network } }, isError: false, durationMs: 5 });
		const lines = narrow.text().trimEnd().split("\n");
		expect(lines[0]).toBe("● bash ls  ✓ 0.0 s");
		expect(lines).toHaveLength(3);
		for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(39);
		expect(lines[2]).toMatch(/^ {2}network: ✗ evil\.test:80 .*…$/);
	});

	it("previews a finished call under its line: a command's last lines, an edit's diff, a new file's lines; bounded and without control bytes", () => {
		const output = sink();
		const view = new ToolCallsView({
			stream: output.stream,
			live: true,
			style: plain,
			columns: () => 40,
			previews: true,
			maxLiveLines: 15,
		});
		const shell = (text: string, exitCode: number) => ({
			content: [{ type: "text" as const, text }],
			details: { exitCode },
		});
		view.start("1", "bash", { command: "make" });
		view.start("2", "edit", { path: "a.ts" });
		view.start("3", "write", { path: "new.txt", content: "a\nb\nc\nd\ne\nf\ng\nh\n" });
		view.start("4", "bash", { command: "rm x" });
		const diff = "--- a.ts\n+++ a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n@@ -9,2 +9,2 @@\n-nine\x1b[2J\n+9\n";
		view.end("1", {
			result: shell(`1\n2\n3\n\x1b[31mlast red\x1b[0m ${"x".repeat(80)}\n\nCommand exited with code 2`, 2),
			isError: true,
			durationMs: 10,
		});
		view.end("2", { result: { content: [], details: { diff } }, isError: false, durationMs: 10 });
		view.end("3", { result: { content: [], details: { created: true } }, isError: false, durationMs: 10 });
		// Refused before it ran: no exit code, no output to preview.
		view.end("4", {
			result: { content: [{ type: "text", text: "Permission denied: rm" }] },
			isError: true,
			durationMs: 0,
		});
		view.dispose();
		const { lines } = screenOf(output.text());
		expect(lines).toEqual([
			"● bash make  ✗ exit 2 · 0.0 s",
			"    2",
			"    3",
			"    [31mlast red[0m xxxxxxxxxxxxxxxxxx…",
			"● edit a.ts  ✓ 0.0 s",
			"      one",
			"    - two",
			"    + 2",
			"      three",
			"    ⋯",
			"    - nine[2J",
			"    … 1 more line",
			"● write new.txt  ✓ 0.0 s",
			"    + a",
			"    + b",
			"    + c",
			"    + d",
			"    + e",
			"    + f",
			"    … 2 more lines",
			"● bash …  ✗ denied by a rule or mode · 0.0 s",
		]);
		for (const line of lines.filter((row) => row.startsWith(" ")))
			expect(Array.from(line).length).toBeLessThanOrEqual(39);
		expect(output.text()).not.toContain("\x1b[31m");
		expect(output.text()).not.toContain("\x1b[2J");
	});
});

function assistant(partial: Partial<AssistantMessage>): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		provider: "test",
		model: "test",
		usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0 },
		stopReason: "stop",
		timestamp: 0,
		...partial,
	};
}

describe("EventRenderer", () => {
	it("streams text and thinking, then tool lines, then errors", () => {
		const output = sink();
		const renderer = new EventRenderer({
			stream: output.stream,
			live: false,
			style: plain,
			assistantText: true,
			thinking: true,
		});
		const message = assistant({ content: [{ type: "text", text: "Looking around." }] });
		const delta = (type: "text_delta" | "thinking_delta", text: string): AgentEvent => ({
			type: "message_update",
			message,
			assistantMessageEvent: { type, contentIndex: 0, delta: text, partial: message },
		});
		const events: AgentEvent[] = [
			{ type: "agent_start" },
			delta("thinking_delta", "Let me think"),
			delta("text_delta", "Looking "),
			delta("text_delta", "around."),
			{ type: "message_end", message },
			{ type: "tool_execution_start", toolCallId: "1", toolName: "ls", args: { path: "src" } },
			{
				type: "tool_execution_end",
				toolCallId: "1",
				toolName: "ls",
				result: { content: [] },
				isError: false,
				durationMs: 5,
			},
			{ type: "message_end", message: assistant({ stopReason: "error", errorMessage: "401 invalid key" }) },
			{ type: "agent_end", messages: [], reason: "error", errorMessage: "401 invalid key" },
		];
		for (const event of events) renderer.handle(event);
		renderer.dispose();
		expect(output.text()).toBe("Let me think\nLooking around.\n● ls src  ✓ 0.0 s\n✗ 401 invalid key\n");
	});

	it("says when a reply is empty, holds only thinking, or was cut off at the token limit", () => {
		const output = sink();
		const renderer = new EventRenderer({ stream: output.stream, live: false, style: plain });
		renderer.handle({ type: "message_end", message: assistant({ content: [] }) });
		renderer.handle({
			type: "message_end",
			message: assistant({
				content: [
					{ type: "thinking", thinking: "hmm" },
					{ type: "text", text: "\n" },
				],
			}),
		});
		renderer.handle({
			type: "message_end",
			message: assistant({ content: [{ type: "text", text: "The answer is" }], stopReason: "length" }),
		});
		// A cut-off tool call is answered for the model; a reply with text is no news.
		renderer.handle({
			type: "message_end",
			message: assistant({
				content: [{ type: "toolCall", id: "1", name: "write", arguments: {} }],
				stopReason: "length",
			}),
		});
		renderer.handle({ type: "message_end", message: assistant({ content: [{ type: "text", text: "Hi." }] }) });
		expect(output.text()).toBe(
			"The model ended its turn without an answer (empty reply).\n".repeat(2) +
				"The reply was cut off at the model's output token limit.\n",
		);
	});

	it("keeps the assistant text out of print-mode progress", () => {
		const output = sink();
		const renderer = new EventRenderer({ stream: output.stream, live: false, style: plain });
		const message = assistant({});
		renderer.handle({
			type: "message_update",
			message,
			assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "answer", partial: message },
		});
		renderer.handle({ type: "agent_end", messages: [], reason: "maxTurns" });
		expect(output.text()).toBe("Stopped: the turn limit was reached (raise it with --max-turns).\n");
	});
});

describe("formatTurnSummary", () => {
	it("sums the usage of every reply of the prompt", () => {
		const usage = (inputTokens: number, outputTokens: number, cacheReadTokens = 0) => ({
			inputTokens,
			outputTokens,
			cacheReadTokens,
			cacheWriteTokens: 0,
			totalTokens: inputTokens + outputTokens + cacheReadTokens,
		});
		const messages = [assistant({ usage: usage(1000, 200, 8000) }), assistant({ usage: usage(3300, 256, 0) })];
		expect(formatTurnSummary(messages, 8100)).toBe("12.3k in (8000 cached) · 456 out · 8.1 s");
		expect(formatTurnSummary([assistant({})], 100)).toBe("");
	});
});
