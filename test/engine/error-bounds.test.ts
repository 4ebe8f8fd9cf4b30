// Every error result is bounded like any other result: a tool that throws a 1 MB message, or a
// call naming a tool by a 1 MB name, answered the model with all of it.
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { resultText } from "../helpers/results.js";
import { call, throwingTool } from "./stub-tools.js";

const MB = 1024 * 1024;

describe("an error result", () => {
	it("of a tool that throws a 1 MB message keeps its start and its end, and says what was cut", async () => {
		const message = `Cannot read ${"x".repeat(MB)}: the name is too long.`;
		const { messages } = await executeToolCalls({ tools: [throwingTool()], toolCalls: [call("boom", { message })] });
		const text = resultText(messages[0]!);
		expect(messages[0]?.isError).toBe(true);
		expect(text.length).toBeLessThan(70_000);
		expect(text.startsWith("Cannot read xxx")).toBe(true);
		expect(text.endsWith(": the name is too long.")).toBe(true);
		expect(text).toMatch(/\[… [\d,]+ characters of this error cut …\]/);
	});

	it("for a tool named by 1 MB is short", async () => {
		const { messages } = await executeToolCalls({ tools: [throwingTool()], toolCalls: [call("y".repeat(MB), {})] });
		const text = resultText(messages[0]!);
		expect(text.length).toBeLessThan(70_000);
		expect(text).toContain("Available tools: boom.");
	});
});
