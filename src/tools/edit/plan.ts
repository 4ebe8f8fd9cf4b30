import { ToolError } from "../../engine/index.js";
import { type EditMatchStrategy, type EditRequest, locateEdit } from "./matching/match.js";
import { MatchContext } from "./matching/match-context.js";
import { omissionPlaceholder } from "./placeholders.js";
import { type AppliedReplacement, type PendingReplacement, type Splice, spliceReplacements } from "./splice.js";
import { lineNumbersOf, withLineEnding } from "./text.js";
import { lineEndingNear, stringSource } from "./text-source.js";

export type { AppliedReplacement } from "./splice.js";

/** The outcome of applying all edits of one call to a file's text. */
export interface EditPlan {
	/** The new text. */
	content: string;
	/** Every replaced span, ascending. */
	replacements: AppliedReplacement[];
	/** The strategy each edit matched with, in the order given. */
	strategies: EditMatchStrategy[];
}

type Pending = PendingReplacement<string>;

function label(index: number, count: number): string {
	return count > 1 ? `edits[${index}]: ` : "";
}

function checkRequest(request: EditRequest, prefix: string): void {
	if (request.oldString === "") {
		throw new ToolError(
			`${prefix}old_string is empty. edit replaces text that already exists: put the text next to where the new text goes in old_string and repeat it in new_string. To write a whole file, use the write tool.`,
		);
	}
	const placeholder = omissionPlaceholder(request.oldString, request.newString);
	if (placeholder) {
		throw new ToolError(
			`${prefix}new_string puts the placeholder \`${placeholder}\` where old_string has code. edit writes new_string literally, so that code would be deleted; nothing was changed. ` +
				"Write the code out in full in new_string, or make old_string cover only the lines that change (several small edits in edits[] are fine).",
			{ reason: "placeholder" },
		);
	}
}

/**
 * Refuses an edit whose every matched span already reads as its replacement. Compared with the
 * file's bytes, not with old_string: old `say "hi"` matching curly quotes in the file, with the
 * same new_string, straightens them — a real change.
 */
function checkChanges(content: string, edits: readonly Pending[], request: EditRequest, prefix: string): void {
	if (!edits.every((edit) => content.slice(edit.start, edit.end) === edit.inserted)) return;
	const why =
		request.oldString === request.newString
			? "old_string and new_string are identical"
			: "the text that matched in the file is already identical to new_string";
	throw new ToolError(
		`${prefix}${why}, so this edit would change nothing. Put the changed text in new_string, or leave this edit out.`,
	);
}

function isMiss(error: ToolError): boolean {
	return (error.details as { reason?: unknown } | undefined)?.reason === "not-found";
}

/**
 * For an old_string that misses: the index of the earlier edit after which it would be found, when
 * the model chained edits as if each saw the result of the one before (a common mistake).
 */
function earlierEditsCreating(content: string, pending: readonly Pending[], needle: string): number[] | undefined {
	const applied = [...pending].sort((a, b) => a.start - b.start || a.end - b.end);
	const spliced = spliceReplacements(applied, (start, end) => content.slice(start, end));
	if (!spliced) return undefined;
	const found = spliced.pieces.join("").indexOf(needle);
	if (found === -1) return undefined;
	// The edits whose inserted text the match touches.
	const creators = new Set<number>();
	for (const { editIndex, newStart, newEnd } of spliced.replacements) {
		if (newStart < found + needle.length && found <= newEnd) creators.add(editIndex);
	}
	return [...creators].sort((a, b) => a - b);
}

/**
 * Applies `requests` to `content`, all matched against the original text, and returns the new
 * text. All or nothing: any miss, ambiguity, overlap or no-op throws a `ToolError` and nothing is
 * applied. Inserted text takes the file's line endings; every byte outside the replaced spans is
 * kept as it was.
 */
export function planEdits(content: string, requests: readonly EditRequest[]): EditPlan {
	const context = new MatchContext(content);
	const source = stringSource(content);
	const pending: Pending[] = [];
	const strategies: EditMatchStrategy[] = [];
	for (const [editIndex, request] of requests.entries()) {
		const prefix = label(editIndex, requests.length);
		checkRequest(request, prefix);
		let located: ReturnType<typeof locateEdit>;
		try {
			located = locateEdit(context, request);
		} catch (error) {
			if (!(error instanceof ToolError) || !prefix) throw error;
			const earlier =
				editIndex > 0 && isMiss(error) ? earlierEditsCreating(content, pending, request.oldString) : undefined;
			if (earlier && earlier.length > 0) {
				const names = earlier.map((index) => `edits[${index}]`).join(" and ");
				throw new ToolError(
					`${prefix}old_string is not in the file as it is now: it only appears once ${names} ${earlier.length > 1 ? "are" : "is"} applied. ` +
						"All edits are matched against the original file, not one after another: write each old_string as the " +
						"file reads now, or merge the dependent edits into one. Nothing was changed.",
					error.details,
				);
			}
			throw new ToolError(`${prefix}${error.message}`, error.details);
		}
		strategies.push(located.strategy);
		const edits: Pending[] = [];
		for (const occurrence of located.occurrences) {
			const text = withLineEnding(occurrence.replacement, lineEndingNear(source, occurrence.start));
			// old_string "\n…" matched just after a CR: take the CR into the span, or "\r\r\n" would result.
			const splitsCrlf =
				text.startsWith("\r\n") &&
				content.charCodeAt(occurrence.start) === 10 &&
				content.charCodeAt(occurrence.start - 1) === 13;
			edits.push({
				editIndex,
				start: splitsCrlf ? occurrence.start - 1 : occurrence.start,
				end: occurrence.end,
				inserted: text,
			});
		}
		checkChanges(content, edits, request, prefix);
		pending.push(...edits);
	}
	pending.sort((a, b) => a.start - b.start || a.end - b.end);
	for (let index = 1; index < pending.length; index++) {
		const previous = pending[index - 1] as Pending;
		const current = pending[index] as Pending;
		if (current.start < previous.end) {
			const [line] = lineNumbersOf(content, [current.start]);
			const which =
				current.editIndex === previous.editIndex
					? `edits[${current.editIndex}] matches overlapping places`
					: `edits[${previous.editIndex}] and edits[${current.editIndex}] overlap`;
			throw new ToolError(
				`${which} (around line ${line}). Each edit is matched against the original file, so their old_string texts must not overlap: merge them into one edit. Nothing was changed.`,
			);
		}
	}
	// Overlaps were refused above, so the splice always succeeds.
	const { pieces, replacements } = spliceReplacements(pending, (start, end) =>
		content.slice(start, end),
	) as Splice<string>;
	const updated = pieces.join("");
	if (updated === content) {
		throw new ToolError(
			"The edit would change nothing: the text that matched is already identical to new_string. Read the file to check its current content.",
		);
	}
	return { content: updated, replacements, strategies };
}
