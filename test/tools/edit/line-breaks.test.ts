import { describe, expect, it } from "vitest";
import { countLineFeeds } from "../../../src/tools/edit/line-breaks.js";

function naive(bytes: Uint8Array, from: number, to: number): number {
	let count = 0;
	for (let index = from; index < to; index++) if (bytes[index] === 10) count++;
	return count;
}

describe("countLineFeeds", () => {
	it("agrees with a byte-by-byte count on every alignment and range", () => {
		let seed = 7;
		const random = () => {
			seed = (seed * 1103515245 + 12345) & 0x7fffffff;
			return seed;
		};
		// Bytes next to 0x0a (0x0b, 0x8a, 0x09) would expose a carry or sign bug in the word-wise test.
		const alphabet = [10, 13, 0x61, 0xe2, 0x80, 0x8a, 0x0b, 0x09, 0xff, 0x00];
		const buffer = Buffer.alloc(4096 + 8);
		for (let index = 0; index < buffer.length; index++) buffer[index] = alphabet[random() % alphabet.length] as number;
		for (let offset = 0; offset < 4; offset++) {
			const view = buffer.subarray(offset);
			for (let trial = 0; trial < 200; trial++) {
				const from = random() % view.length;
				const to = from + (random() % (view.length - from + 1));
				expect(countLineFeeds(view, from, to), `offset ${offset} [${from}, ${to})`).toBe(naive(view, from, to));
			}
		}
	});

	it("counts a buffer made only of line feeds, and empty ranges", () => {
		const bytes = Buffer.alloc(1000, 10);
		expect(countLineFeeds(bytes, 0, 1000)).toBe(1000);
		expect(countLineFeeds(bytes, 500, 500)).toBe(0);
		expect(countLineFeeds(bytes, 3, 2000)).toBe(997);
	});
});
