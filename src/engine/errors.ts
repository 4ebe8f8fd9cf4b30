/**
 * An error whose message is written for the model and which carries structured details
 * (exit code, output path, …) into the error result. Tools throw it; the engine converts it.
 */
export class ToolError<TDetails = unknown> extends Error {
	/** Structured data kept in the error result's `details`. */
	readonly details: TDetails | undefined;

	constructor(message: string, details?: TDetails) {
		super(message);
		this.name = "ToolError";
		this.details = details;
	}
}

/** Thrown when a run or a call was aborted. */
export class AbortError extends Error {
	constructor(message = "The operation was aborted.") {
		super(message);
		this.name = "AbortError";
	}
}

/** True for any abort-shaped error: ours, DOM's `AbortError`, or Node's `ABORT_ERR`. */
export function isAbortError(error: unknown): boolean {
	if (!(error instanceof Error)) return false;
	return error.name === "AbortError" || (error as { code?: unknown }).code === "ABORT_ERR";
}

/** Throws an `AbortError` if `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, message?: string): void {
	if (signal?.aborted) throw new AbortError(message);
}

/** The message of any thrown value, for the model. */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message || error.name;
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error);
	} catch {
		return String(error);
	}
}
