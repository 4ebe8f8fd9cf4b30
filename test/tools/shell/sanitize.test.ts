import { describe, expect, it } from "vitest";
import { sanitizeTerminalOutput } from "../../../src/workspace/shell/sanitize.js";

describe("sanitizeTerminalOutput", () => {
	it("strips colour, cursor and OSC sequences", () => {
		expect(sanitizeTerminalOutput("\x1b[1;31mbold red\x1b[0m plain\n")).toBe("bold red plain\n");
		expect(sanitizeTerminalOutput("\x1b[2K\x1b[1Gline\x1b[?25h\n")).toBe("line\n");
		expect(sanitizeTerminalOutput("\x1b]0;title\x07text \x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n")).toBe(
			"text link\n",
		);
		expect(sanitizeTerminalOutput("\x1b(Bcharset\x1b=keypad\n")).toBe("charsetkeypad\n");
	});

	it("collapses carriage-return redraws to the text before them and the final state", () => {
		expect(sanitizeTerminalOutput("red\r10%\r100%\n")).toBe("red\n100%\n");
		expect(sanitizeTerminalOutput("\r 10%\r 50%\r100%\ndone\n")).toBe("100%\ndone\n");
		expect(sanitizeTerminalOutput("progress\r\r")).toBe("progress");
	});

	it("turns CRLF into LF and applies backspaces", () => {
		expect(sanitizeTerminalOutput("a\r\nb\r\n")).toBe("a\nb\n");
		expect(sanitizeTerminalOutput("abc\b\bX\n")).toBe("aX\n");
	});

	it("drops other control bytes but keeps tabs and text", () => {
		expect(sanitizeTerminalOutput("a\x00b\x07c\td\x7f\n")).toBe("abc\td\n");
		expect(sanitizeTerminalOutput("ünïcödé 😀\n")).toBe("ünïcödé 😀\n");
	});
});
