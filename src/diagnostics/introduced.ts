// Which diagnostics a change introduced: those of the new text that the old text did not have.
// A diagnostic is old when one with the same message and code was on the same line, lines
// after the changed block shifted by the lines the change added or removed; one inside the
// changed block is old when an equal one was inside the block the change replaced.
import type { FileDiagnostic } from "./types.js";

/** The changed block of lines: `start` (0-based) to `oldEnd` in the old text, `newEnd` in the new. */
interface ChangedLines {
	start: number;
	oldEnd: number;
	newEnd: number;
}

function changedLines(before: string, after: string): ChangedLines {
	const old = before.split("\n");
	const updated = after.split("\n");
	let start = 0;
	while (start < old.length && start < updated.length && old[start] === updated[start]) start++;
	let tail = 0;
	while (
		tail < old.length - start &&
		tail < updated.length - start &&
		old[old.length - 1 - tail] === updated[updated.length - 1 - tail]
	) {
		tail++;
	}
	return { start, oldEnd: old.length - tail, newEnd: updated.length - tail };
}

const keyOf = (diagnostic: FileDiagnostic) =>
	`${diagnostic.severity}\u0000${diagnostic.code ?? ""}\u0000${diagnostic.message}`;

/**
 * The diagnostics of `after` that `before` did not have (each old diagnostic excuses one new one),
 * and how many of `before`'s are gone.
 */
export function introducedDiagnostics(options: {
	beforeText: string;
	afterText: string;
	before: readonly FileDiagnostic[];
	after: readonly FileDiagnostic[];
}): { introduced: FileDiagnostic[]; resolved: number } {
	const span = changedLines(options.beforeText, options.afterText);
	const shift = span.newEnd - span.oldEnd;
	// Where each old diagnostic is now: a line, or "in the changed block".
	const unmatched = new Map<string, (number | "block")[]>();
	for (const diagnostic of options.before) {
		const line = diagnostic.line - 1;
		const place = line < span.start ? line : line >= span.oldEnd ? line + shift : "block";
		const key = keyOf(diagnostic);
		unmatched.set(key, [...(unmatched.get(key) ?? []), place]);
	}
	const take = (key: string, place: number | "block") => {
		const places = unmatched.get(key);
		const index = places?.indexOf(place) ?? -1;
		if (index < 0) return false;
		places?.splice(index, 1);
		return true;
	};
	const introduced: FileDiagnostic[] = [];
	const inBlock: FileDiagnostic[] = [];
	// Exact places first, so a diagnostic in the block cannot take the excuse of one that stayed put.
	for (const diagnostic of options.after) {
		if (!take(keyOf(diagnostic), diagnostic.line - 1)) inBlock.push(diagnostic);
	}
	for (const diagnostic of inBlock) {
		const line = diagnostic.line - 1;
		const inChangedBlock = line >= span.start && line < Math.max(span.newEnd, span.start + 1);
		if (!(inChangedBlock && take(keyOf(diagnostic), "block"))) introduced.push(diagnostic);
	}
	const resolved = [...unmatched.values()].reduce((count, places) => count + places.length, 0);
	return { introduced, resolved };
}
