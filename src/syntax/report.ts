// The words a model reads about a syntax verdict: where the error is (line, column, the node around
// it, the lines around it) and what to do next. Neutral: a warning states what the parser found,
// it does not tell the model to fix it (peers saw "please fix" start loops of retries).
import type { SyntaxVerdict } from "./check-change.js";
import type { SyntaxProblem } from "./problems.js";

/** Errors described in full; the rest are counted. */
const SHOWN_PROBLEMS = 3;
/** Lines shown on each side of the first error. */
const CONTEXT_LINES = 2;
const MAX_SHOWN_LINE = 160;

/** The lines around a problem, numbered, the problem's line marked and its column pointed at. */
export function excerptAround(text: string, problem: SyntaxProblem): string {
	const lines = text.split("\n");
	const first = Math.max(1, problem.line - CONTEXT_LINES);
	const last = Math.min(lines.length, problem.line + CONTEXT_LINES);
	const width = String(last).length;
	const out: string[] = [];
	for (let number = first; number <= last; number++) {
		let line = (lines[number - 1] ?? "").replace(/\r$/, "");
		if (line.length > MAX_SHOWN_LINE) line = `${line.slice(0, MAX_SHOWN_LINE)}…`;
		const mark = number === problem.line ? ">" : " ";
		out.push(`${mark} ${String(number).padStart(width)} | ${line}`);
		if (number === problem.line && problem.column <= MAX_SHOWN_LINE) {
			// Tabs kept, so the caret lines up under the column however the reader shows tabs.
			const lead = line.slice(0, problem.column - 1).replace(/[^\t]/g, " ");
			out.push(`  ${" ".repeat(width)} | ${lead}^`);
		}
	}
	return out.join("\n");
}

function describeProblem(problem: SyntaxProblem): string {
	const where = problem.enclosing ? `, in ${problem.enclosing}` : "";
	return `line ${problem.line}, column ${problem.column}: ${problem.description}${where}`;
}

function listProblems(problems: readonly SyntaxProblem[]): string {
	const shown = problems.slice(0, SHOWN_PROBLEMS).map((problem) => `- ${describeProblem(problem)}`);
	const more = problems.length - SHOWN_PROBLEMS;
	if (more > 0) shown.push(`- and ${more} more`);
	return shown.join("\n");
}

/** One file's part of a refusal: what the parser found, with the lines around the first error. */
export function describeBrokenFile(display: string, verdict: SyntaxVerdict, after: string): string {
	const first = verdict.added[0];
	const count = verdict.added.length;
	const errors = `${count} syntax error${count === 1 ? "" : "s"}`;
	const head = verdict.created
		? `${display} would be a new file that does not parse as ${verdict.language} (${errors}):`
		: `${display} parses as ${verdict.language} now, and would not after this change (${errors}):`;
	return first ? `${head}\n${listProblems(verdict.added)}\n${excerptAround(after, first)}` : head;
}

/** What the model is told when changes are refused. */
export function refusalMessage(files: readonly string[], forceHint: string): string {
	return `${files.join("\n\n")}\nNothing was written. Correct the new text and call again. If the file is meant to stay unfinished until a later call, repeat this call with ${forceHint}.`;
}

/** A note for a change that was applied although it adds syntax errors. */
export function warningMessage(display: string, verdict: SyntaxVerdict, after: string): string {
	const count = verdict.added.length;
	const first = verdict.added[0];
	const had = verdict.created
		? "is new"
		: verdict.errorsBefore === 0
			? "had no syntax errors before this change"
			: `had ${verdict.errorsBefore} syntax error${verdict.errorsBefore === 1 ? "" : "s"} before this change`;
	const head = `[Syntax: ${display} ${had}; the ${verdict.language} parser now finds ${count} more:\n${listProblems(verdict.added)}`;
	return first ? `${head}\n${excerptAround(after, first)}]` : `${head}]`;
}
