import { describe, expect, it } from "vitest";
import { DETAILS_META_KEY, toCallToolResult } from "../../src/mcp/server.js";

describe("toCallToolResult", () => {
	it("sends details as plain JSON in _meta", () => {
		const result = toCallToolResult({
			role: "toolResult",
			toolCallId: "1",
			toolName: "t",
			content: [{ type: "text", text: "ok" }],
			details: { count: 2, when: new Date(0) },
			isError: false,
			timestamp: 0,
		});
		expect(result._meta?.[DETAILS_META_KEY]).toEqual({ count: 2, when: "1970-01-01T00:00:00.000Z" });
		expect(result.isError).toBeUndefined();
	});

	it("replaces details too large to send by a note, and keeps the content", () => {
		const result = toCallToolResult({
			role: "toolResult",
			toolCallId: "1",
			toolName: "t",
			content: [{ type: "text", text: "short" }],
			details: { blob: "x".repeat(3 * 2 ** 20) },
			isError: false,
			timestamp: 0,
		});
		expect(JSON.stringify(result).length).toBeLessThan(10_000);
		expect(result._meta?.[DETAILS_META_KEY]).toEqual({ omitted: expect.stringContaining("characters of JSON") });
		expect(result.content).toEqual([{ type: "text", text: "short" }]);
	});
});
