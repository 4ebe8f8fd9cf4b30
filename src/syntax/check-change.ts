// The syntax check of a change: the file's text before and after, read with its language's
// grammar. A file that read without errors and would not after is refused (by default); a file
// that already had errors is only warned about the errors the change adds.
import { type ChangedSpan, changedSpan } from "./changed-span.js";
import { syntaxLanguageOf } from "./languages.js";
import type { SyntaxProblem, SyntaxReading } from "./problems.js";
import { readKept } from "./readers/kept-readings.js";
import { readWithTreeSitter } from "./tree-sitter-reading.js";

/**
 * What the syntax check does with a change that adds syntax errors: `reject` refuses a change that
 * breaks a file that parsed (and warns for one already broken), `warn` applies it and warns, `off`
 * does not parse at all.
 */
export type SyntaxCheckMode = "reject" | "warn" | "off";

/** Texts longer than this (UTF-16 code units) are not checked. */
export const MAX_CHECKED_TEXT = 2 * 2 ** 20;
/** How long one reading may take before the check gives up (the change is then applied unchecked). */
const DEFAULT_BUDGET_MS = 1000;

/** The verdict on one file's change. */
export interface SyntaxVerdict {
	/**
	 * `clean`: no error added; `broken`: errors added to a file that had none; `worse`: errors added to
	 * a file that already had some; `unchecked`: the language has no grammar, the file is too large,
	 * or reading it took too long (see `note`).
	 */
	status: "clean" | "broken" | "worse" | "unchecked";
	/** The language read, e.g. `"TypeScript"`; undefined when no grammar reads the file. */
	language?: string;
	/** The errors the change adds, in text order. */
	added: SyntaxProblem[];
	/** How many errors the file had before the change. */
	errorsBefore: number;
	/** True when the file did not exist before the change. */
	created?: boolean;
	/** Why a file with a grammar was not checked. */
	note?: string;
}

/** One file's change, as the check reads it. */
export interface SyntaxChange {
	/** The file's absolute path: picks the grammar, and keys the kept tree for the next change. */
	path: string;
	/** Its text before the change, or undefined for a file that did not exist (read as error-free). */
	before: string | undefined;
	/** Its text after the change. */
	after: string;
	/** Milliseconds one reading may take. Default: 1000. */
	budgetMs?: number;
}

async function read(change: SyntaxChange, text: string, from: string | undefined): Promise<SyntaxReading> {
	const language = syntaxLanguageOf(change.path);
	if (!language) return { problems: [], incomplete: false };
	if (language.reader.kind === "parser") {
		return readKept(change.path, text, language.reader.read, language.reader.update);
	}
	return readWithTreeSitter(text, {
		grammar: language.reader.grammar,
		key: change.path,
		from,
		budgetMs: change.budgetMs ?? DEFAULT_BUDGET_MS,
	});
}

/**
 * The errors of `after` that `before` did not have. An error is old when one was at the same place
 * in the text that did not change (its offset moved by the change's length when after it), or when
 * it touches the changed span and an old error touched that span too (an edit inside a broken
 * region that leaves it broken adds nothing the file did not have).
 */
function addedProblems(before: readonly SyntaxProblem[], after: readonly SyntaxProblem[], span: ChangedSpan) {
	const shift = span.newEnd - span.oldEnd;
	const moved = (offset: number) => (offset >= span.oldEnd ? offset + shift : offset);
	const oldStarts = new Set(
		before
			.filter((problem) => problem.end <= span.start || problem.offset >= span.oldEnd)
			.map((problem) => moved(problem.offset)),
	);
	const touched = (problem: SyntaxProblem, end: number) => problem.offset <= end && problem.end >= span.start;
	const oldTouched = before.some((problem) => touched(problem, span.oldEnd));
	const added = after.filter(
		(problem) => !oldStarts.has(problem.offset) && !(oldTouched && touched(problem, span.newEnd)),
	);
	// A new region is reported where it goes wrong, unless that place is an old error's (the
	// region then grew over it, and its own start says more).
	const oldPlaces = new Set(before.flatMap((problem) => [problem.offset, problem.located?.offset ?? -1]).map(moved));
	return added.map(({ located, ...problem }) => (located && !oldPlaces.has(located.offset) ? located : problem));
}

/**
 * Reads a file's text before and after a change and says whether the change adds syntax errors.
 * Never throws for a text it cannot read: the verdict is then `unchecked` with a note.
 */
export async function checkSyntaxChange(change: SyntaxChange): Promise<SyntaxVerdict> {
	const language = syntaxLanguageOf(change.path);
	if (!language) return { status: "unchecked", added: [], errorsBefore: 0 };
	const base = { language: language.name, added: [], errorsBefore: 0 };
	if (change.before === change.after) return { status: "clean", ...base };
	if (change.after.length > MAX_CHECKED_TEXT || (change.before?.length ?? 0) > MAX_CHECKED_TEXT) {
		return {
			status: "unchecked",
			...base,
			note: `the file is larger than the syntax check reads (${MAX_CHECKED_TEXT / 2 ** 20} MB)`,
		};
	}
	try {
		const before = change.before === undefined ? undefined : await read(change, change.before, undefined);
		const after = await read(change, change.after, change.before);
		if (before?.incomplete || after.incomplete) {
			return { status: "unchecked", ...base, note: "parsing it took longer than the syntax check waits" };
		}
		const old = before?.problems ?? [];
		const added = addedProblems(old, after.problems, changedSpan(change.before ?? "", change.after));
		const status = added.length === 0 ? "clean" : old.length === 0 ? "broken" : "worse";
		const created = change.before === undefined ? { created: true } : {};
		return { status, language: language.name, added, errorsBefore: old.length, ...created };
	} catch (error) {
		return { status: "unchecked", ...base, note: `its grammar could not be loaded (${(error as Error).message})` };
	}
}
