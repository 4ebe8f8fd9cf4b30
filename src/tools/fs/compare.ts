/**
 * Orders strings by Unicode code point, the same on every machine and locale (unlike
 * `localeCompare`). JavaScript's `<` compares UTF-16 units, which puts characters above U+FFFF
 * (surrogates, 0xD800–0xDFFF) before U+E000–U+FFFF; shifting the ranges fixes that.
 */
export function compareCodePoints(left: string, right: string): number {
	const length = Math.min(left.length, right.length);
	for (let index = 0; index < length; index++) {
		const a = left.charCodeAt(index);
		const b = right.charCodeAt(index);
		if (a !== b) return codePointRank(a) - codePointRank(b);
	}
	return left.length - right.length;
}

function codePointRank(unit: number): number {
	if (unit >= 0xe000) return unit - 0x800;
	if (unit >= 0xd800) return unit + 0x2000;
	return unit;
}
