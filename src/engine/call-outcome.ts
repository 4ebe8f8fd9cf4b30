import { errorMessage, isAbortError, ToolError } from "./errors.js";
import { cutMiddle, cutText, DEFAULT_MAX_BYTES } from "./truncate.js";
import type { ToolResult } from "./types.js";
import { type ReadArguments, readArgumentsText } from "./validation/repair-arguments.js";

/** What a call ended with: its result and whether that is an error. */
export interface Outcome {
	result: ToolResult;
	isError: boolean;
}

/**
 * Characters of an error kept at its start and at its end: an error gets the budget of any result.
 * A message grows with what it echoes (a 200 KB path, a tool named by a megabyte), and its end says
 * why (": the name is too long."), so the middle goes.
 */
const ERROR_HEAD = DEFAULT_MAX_BYTES;
const ERROR_TAIL = 2_000;

/** An error outcome with `text` for the model, its middle cut past the budget of a result. */
export function errorOutcome(text: string, details?: unknown): Outcome {
	const bounded = cutMiddle(text, { head: ERROR_HEAD, tail: ERROR_TAIL, noun: "error" }).text;
	return { result: { content: [{ type: "text", text: bounded }], details }, isError: true };
}

/** The outcome of a call the abort stopped before it began. */
export function abortedBeforeStart(toolName: string): Outcome {
	return errorOutcome(`Tool "${toolName}" was not run: the run was aborted before this call started.`);
}

/** The outcome of a tool that threw. */
export function outcomeOfThrow(toolName: string, error: unknown): Outcome {
	if (isAbortError(error)) {
		return errorOutcome(`Tool "${toolName}" was cancelled: the run was aborted while it was running.`);
	}
	return errorOutcome(errorMessage(error), error instanceof ToolError ? error.details : undefined);
}

/** True for a value shaped like a `ToolResult`. */
export function isToolResult(value: unknown): value is ToolResult {
	return typeof value === "object" && value !== null && Array.isArray((value as ToolResult).content);
}

/**
 * Some models send the arguments object as a JSON string, and some send JSON with mistakes: read it,
 * repaired where that is safe (`readArgumentsText`). A string that cannot be read is an error the
 * model can fix.
 */
export function parseArguments(toolName: string, raw: unknown): ReadArguments {
	if (typeof raw !== "string") return { value: raw };
	try {
		return readArgumentsText(raw);
	} catch (error) {
		const shown = cutText(raw, { maxLength: 2000 }).text;
		throw new Error(
			`The arguments for tool "${toolName}" are not valid JSON (${errorMessage(error)}). ` +
				`Send one JSON object matching the tool's schema.\n\nReceived:\n${shown}`,
		);
	}
}
