import { AbortError, formatSize, ToolError, truncateTail } from "../../engine/index.js";
import type { ProgramLimits, ProgramOutcome } from "./run-program.js";

/** Structured result of a program, for programs and UIs. */
export interface CodeToolDetails {
	/** How the program ended. */
	status: ProgramOutcome["status"];
	/** Which bound stopped it, when one did. */
	bound?: ProgramOutcome["bound"];
	/** Tool calls the program made. */
	toolCalls: number;
	/** Bytes printed beyond the kept output, dropped. */
	outputBytesDropped: number;
	/** Characters of the returned value, before any cut. */
	valueChars?: number;
	/** True when the text shown to the model was cut to its budget. */
	truncated: boolean;
	/** True when the program's interpreter had started before the call (the warm spare of the last program). */
	warmStart?: boolean;
}

/** The model-facing budget of a program's result. */
export interface ResultBudget {
	maxBytes: number;
	maxLines: number;
}

/** Why a bound stopped a program, and what to do instead. */
function boundText(bound: NonNullable<ProgramOutcome["bound"]>, limits: ProgramLimits): string {
	switch (bound) {
		case "cpu":
			return `it ran longer than its ${limits.cpuMs / 1000} s of interpreter time (the cpuMs bound; time waiting on tools does not count). Look for an endless loop, or do less work per program`;
		case "memory":
			return `it needed more than its ${formatSize(limits.memoryBytes)} of memory (the memoryBytes bound). Keep less in memory: filter results as they arrive instead of collecting them`;
		case "stack":
			return `its recursion went deeper than its ${formatSize(limits.stackBytes)} stack allows (the stackBytes bound; a deeply nested value passed to JSON.stringify counts too). Use a loop instead of deep recursion`;
		case "toolCalls":
			return `it made more than ${limits.maxToolCalls} tool calls (the maxToolCalls bound). Use fewer, broader calls (one grep over a folder instead of one per file) or split the work over several programs`;
	}
}

function printedSoFar(outcome: ProgramOutcome): string {
	return outcome.output === "" ? "" : `\n\nOutput before it stopped:\n${outcome.output}`;
}

/** The text the model reads for a program that returned, before the budget cut. */
function returnedText(outcome: ProgramOutcome): string {
	const parts: string[] = [];
	if (outcome.output !== "") parts.push(outcome.output.replace(/\n$/, ""));
	if (outcome.outputBytesDropped > 0) {
		parts.push(
			`[${formatSize(outcome.outputBytesDropped)} of printed output left out: the program printed more than is kept.]`,
		);
	}
	if (outcome.value !== undefined) {
		const cut = (outcome.valueChars ?? 0) > outcome.value.length;
		parts.push(
			`Returned:\n${outcome.value}${cut ? `\n[The returned value has ${outcome.valueChars} characters; only the first ${outcome.value.length} were kept.]` : ""}`,
		);
	}
	if (parts.length === 0) parts.push("(The program printed nothing and returned nothing.)");
	return parts.join("\n\n");
}

/**
 * The result of a program as the model reads it: what it printed and what it returned, cut to
 * the budget with the same rule as a file (the head is kept) and a note on what was cut. A program
 * that threw, did not parse, never settled or was stopped by a bound becomes a thrown `ToolError`
 * (an aborted one an `AbortError`), with what it printed before.
 */
export function programResult(outcome: ProgramOutcome, limits: ProgramLimits, budget: ResultBudget) {
	const details: CodeToolDetails = {
		status: outcome.status,
		...(outcome.bound ? { bound: outcome.bound } : {}),
		toolCalls: outcome.toolCalls,
		outputBytesDropped: outcome.outputBytesDropped,
		...(outcome.valueChars !== undefined ? { valueChars: outcome.valueChars } : {}),
		truncated: false,
		...(outcome.warmStart !== undefined ? { warmStart: outcome.warmStart } : {}),
	};
	const calls = `${outcome.toolCalls} tool call${outcome.toolCalls === 1 ? "" : "s"}`;
	switch (outcome.status) {
		case "aborted":
			throw new AbortError("The program was cancelled; its running tool calls were cancelled with it.");
		case "bound":
			throw new ToolError(
				`The program was stopped after ${calls}: ${boundText(outcome.bound ?? "cpu", limits)}.${printedSoFar(outcome)}`,
				details,
			);
		case "syntax":
			throw new ToolError(
				`The program did not parse: ${outcome.error}. Send plain JavaScript or TypeScript statements (top-level await and return work); there is no import or require: reach files and commands through tools.<name>(args).`,
				details,
			);
		case "threw":
			throw new ToolError(`The program threw after ${calls}: ${outcome.error}${printedSoFar(outcome)}`, details);
		case "never-settles":
			throw new ToolError(
				`The program waits on a promise that nothing will settle (no tool call is running), so it was ended after ${calls}. Await the tool calls you start, and return when done.${printedSoFar(outcome)}`,
				details,
			);
		case "crashed":
			throw new ToolError(
				`The interpreter failed after ${calls}: ${outcome.error ?? "no reason given"}.${printedSoFar(outcome)}`,
				details,
			);
	}
	const text = returnedText(outcome);
	const cut = truncateTail(text, budget);
	if (!cut.truncated) return { content: [{ type: "text" as const, text: `${text}\n\n(${calls})` }], details };
	details.truncated = true;
	const note = `[Result cut to ${cut.outputLines} of ${cut.originalLines} lines (${formatSize(cut.outputBytes)} of ${formatSize(cut.originalBytes)}). Print less or return only what you need: filter, count or summarise inside the program.]`;
	return { content: [{ type: "text" as const, text: `${cut.content}\n\n${note} (${calls})` }], details };
}
