import { errorMessage, isAbortError, ToolError } from "./errors.js";
import { cutText } from "./truncate.js";
import type { ToolResult } from "./types.js";
import { type ReadArguments, readArgumentsText } from "./validation/repair-arguments.js";

/** What a call ended with: its result and whether that is an error. */
export interface Outcome {
	result: ToolResult;
	isError: boolean;
}

/** An error outcome with `text` for the model. */
export function errorOutcome(text: string, details?: unknown): Outcome {
	return { result: { content: [{ type: "text", text }], details }, isError: true };
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
