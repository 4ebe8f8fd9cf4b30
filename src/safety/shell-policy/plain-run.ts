/**
 * A table of the characters that mean something to a scanner, by code (all below 128); every
 * other character is ordinary. Looking codes up in a table is cheaper than running a sticky regex
 * per run.
 */
export function specialCharTable(chars: string): Uint8Array {
	const table = new Uint8Array(128);
	for (const char of chars) table[char.charCodeAt(0)] = 1;
	return table;
}

/** The end of the run of ordinary characters starting at `index` (`index` itself when there is none). */
export function plainRunEnd(text: string, index: number, special: Uint8Array): number {
	let end = index;
	while (end < text.length) {
		const code = text.charCodeAt(end);
		if (code < 128 && special[code] === 1) break;
		end++;
	}
	return end;
}
