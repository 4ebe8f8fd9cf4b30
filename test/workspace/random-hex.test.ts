import { describe, expect, it } from "vitest";
import { randomHex } from "../../src/workspace/index.js";

describe("randomHex", () => {
	it("gives the bytes asked for, as lowercase hex, never the same twice in many draws", () => {
		for (const bytes of [1, 3, 6, 16, 64]) expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
		const drawn = new Set(Array.from({ length: 10_000 }, () => randomHex(8)));
		expect(drawn.size).toBe(10_000);
	});

	it("spreads its bits: each of the 16 hex digits about as often as the others", () => {
		// 200,000 digits: each expected 12,500 times; a stuck or skewed source is far outside ±10%.
		const counts = new Map<string, number>();
		for (const digit of randomHex(100_000)) counts.set(digit, (counts.get(digit) ?? 0) + 1);
		expect(counts.size).toBe(16);
		for (const count of counts.values()) expect(Math.abs(count - 12_500)).toBeLessThan(1_250);
	});
});
