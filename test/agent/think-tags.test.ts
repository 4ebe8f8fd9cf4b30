import { describe, expect, it } from "vitest";
import { type ContentSegment, ThinkTagSplitter } from "../../src/agent/providers/think-tags.js";

function split(deltas: string[]): ContentSegment[] {
	const splitter = new ThinkTagSplitter();
	const segments = [...deltas.flatMap((delta) => splitter.push(delta)), ...splitter.flush()];
	// Merge neighbours of the same kind, as the reply builder does.
	return segments.reduce<ContentSegment[]>((merged, segment) => {
		const last = merged.at(-1);
		if (last?.kind === segment.kind) last.text += segment.text;
		else merged.push({ ...segment });
		return merged;
	}, []);
}

describe("ThinkTagSplitter", () => {
	it("splits a leading think section even when the tags are cut across deltas", () => {
		expect(split(["<thi", "nk>Let me ", "see.</th", "ink>\n\n", "The answer is 4."])).toEqual([
			{ kind: "thinking", text: "Let me see." },
			{ kind: "text", text: "The answer is 4." },
		]);
	});

	it("leaves plain text, and a later mention of <think>, as text", () => {
		expect(split(["Use the ", "<think> tag like this."])).toEqual([
			{ kind: "text", text: "Use the <think> tag like this." },
		]);
		expect(split(["<b>bold</b>"])).toEqual([{ kind: "text", text: "<b>bold</b>" }]);
	});

	it("keeps unterminated thinking as thinking and short replies intact", () => {
		expect(split(["<think>still going"])).toEqual([{ kind: "thinking", text: "still going" }]);
		expect(split(["<"])).toEqual([{ kind: "text", text: "<" }]);
		expect(split(["  ", "<think>a</think>b"])).toEqual([
			{ kind: "thinking", text: "a" },
			{ kind: "text", text: "b" },
		]);
	});
});
