import { describe, expect, it } from "vitest";
import { InputTokenizer } from "../../../src/cli/interactive/input-tokens.js";
import { PastedBlocks } from "../../../src/cli/interactive/pasted-blocks.js";
import { TypeAhead } from "../../../src/cli/interactive/type-ahead.js";

describe("keyboard input: pastes, the new-line key and type-ahead", () => {
	it("a paste cut into chunks anywhere, its markers too, is one token with every line", () => {
		const raw = "ab\x1b[200~one\rtwo\r\nthree\x1b[201~cd";
		for (let cut = 1; cut < raw.length; cut++) {
			const tokenizer = new InputTokenizer();
			const tokens = [...tokenizer.push(raw.slice(0, cut)), ...tokenizer.push(raw.slice(cut))];
			const text = tokens.map((token) => (token.type === "text" ? token.text : `[${token.type}]`)).join("");
			expect(text, `cut at ${cut}`).toBe("ab[paste]cd");
			expect(tokens.find((token) => token.type === "paste")).toEqual({ type: "paste", text: "one\ntwo\nthree" });
		}
	});

	it("Alt-Enter and Shift-Enter are the new-line key; a lone Escape and arrow keys pass to the editor", () => {
		const tokenizer = new InputTokenizer();
		expect(tokenizer.push("a\x1b\rb\x1b[13;2uc")).toEqual([
			{ type: "text", text: "a" },
			{ type: "newLine" },
			{ type: "text", text: "b" },
			{ type: "newLine" },
			{ type: "text", text: "c" },
		]);
		expect(tokenizer.push("\x1b")).toEqual([{ type: "text", text: "\x1b" }]);
		expect(tokenizer.push("\x1b[A")).toEqual([{ type: "text", text: "\x1b[A" }]);
	});

	it("a multi-line block stands as a placeholder and comes back whole; one line is itself", () => {
		const blocks = new PastedBlocks();
		expect(blocks.placeholder("just\x03 one")).toBe("just one");
		const placeholder = blocks.placeholder("a\n  b\nc\n");
		expect(placeholder).toBe("[paste #1, 3 lines]");
		expect(blocks.expand(`look: ${placeholder} [paste #9, 2 lines]`)).toBe("look: a\n  b\nc\n [paste #9, 2 lines]");
	});

	it("type-ahead keeps a line as cooked mode does and queues it at Enter", () => {
		const typeAhead = new TypeAhead();
		const typed = typeAhead.add({ type: "text", text: "helo\x7flo\x1b[D there\rnext\x15again" });
		expect(typed).toEqual({ queued: ["hello there"], interrupt: false, endOfInput: false });
		typeAhead.add({ type: "newLine" });
		typeAhead.add({ type: "paste", text: "x\ny" });
		expect(typeAhead.add({ type: "text", text: "\x03\x04" })).toMatchObject({ interrupt: true, endOfInput: true });
		expect(typeAhead.takeUnfinished()).toBe("again\nx\ny");
		expect(typeAhead.takeUnfinished()).toBe("");
	});
});
