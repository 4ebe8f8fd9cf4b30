import { describe, expect, it } from "vitest";
import { countLineBreaks } from "../../../src/tools/edit/line-breaks.js";

function naive(bytes: Uint8Array, from: number, to: number) {
	let lineFeeds = 0;
	let crlf = 0;
	for (let index = from; index < to; index++) {
		if (bytes[index] !== 10) continue;
		lineFeeds++;
		if (index > 0 && bytes[index - 1] === 13) crlf++;
	}
	return { lineFeeds, crlf };
}

describe("countLineBreaks", () => {
	it("agrees with a byte-by-byte count on every alignment and range", () => {
		// Random mixes of CR, LF and other bytes stress word boundaries (CR at byte 3, LF at byte 0 of the next word).
		let seed = 7;
		const random = () => {
			seed = (seed * 1103515245 + 12345) & 0x7fffffff;
			return seed;
		};
		const alphabet = [10, 13, 0x61, 0xe2, 0x80, 0x0a ^ 0x80, 0x8d];
		const buffer = Buffer.alloc(4096 + 8);
		for (let index = 0; index < buffer.length; index++) buffer[index] = alphabet[random() % alphabet.length] as number;
		for (let offset = 0; offset < 4; offset++) {
			const view = buffer.subarray(offset);
			for (let trial = 0; trial < 200; trial++) {
				const from = random() % view.length;
				const to = from + (random() % (view.length - from + 1));
				expect(countLineBreaks(view, from, to), `offset ${offset} [${from}, ${to})`).toEqual(naive(view, from, to));
			}
		}
	});

	it("counts a CRLF split across the start of the range as CRLF", () => {
		const bytes = Buffer.from("a\r\nb\r\n");
		expect(countLineBreaks(bytes, 2, bytes.length)).toEqual({ lineFeeds: 2, crlf: 2 });
		expect(countLineBreaks(bytes, 0, bytes.length)).toEqual({ lineFeeds: 2, crlf: 2 });
		expect(countLineBreaks(Buffer.from("a\nb\r\nc\n"), 0, 7)).toEqual({ lineFeeds: 3, crlf: 1 });
	});
});
