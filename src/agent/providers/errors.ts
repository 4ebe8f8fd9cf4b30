import { errorMessage } from "../../engine/index.js";
import { causeCodes, errorClassName, errorStatus, errorType } from "./retry.js";

const UNREACHABLE_CODES = new Set([
	"ECONNREFUSED",
	"ENOTFOUND",
	"EAI_NONAME",
	"EAI_AGAIN",
	"EHOSTUNREACH",
	"ENETUNREACH",
]);

/** Options of `describeProviderError`. */
export interface DescribeErrorOptions {
	/** Readable API name, e.g. `OpenAI-compatible API` or `Anthropic API`. */
	label: string;
	/** The URL requests went to. */
	baseUrl: string;
	/** Model id, named in "not found" errors. */
	modelId: string;
	/** Environment variable of the key, named in auth errors. */
	apiKeyVariable: string;
}

/** The provider's own explanation inside an SDK error, without the SDK's status prefix. */
function innerMessage(error: unknown): string {
	const body = (error as { error?: unknown })?.error as
		| { message?: unknown; error?: { message?: unknown } }
		| string
		| undefined;
	if (typeof body === "string" && body) return body;
	if (body && typeof body === "object") {
		if (typeof body.message === "string" && body.message) return body.message;
		if (typeof body.error?.message === "string" && body.error.message) return body.error.message;
	}
	const message = errorMessage(error);
	// The SDKs prefix the status ("429 Too many requests"); the caller states it separately.
	return message.replace(/^\d{3}\s+/, "");
}

function causeOf(error: unknown): string {
	let cause = (error as { cause?: unknown })?.cause;
	const parts: string[] = [];
	for (let depth = 0; cause && depth < 3; depth++) {
		const code = (cause as { code?: unknown }).code;
		parts.push(typeof code === "string" ? `${code}: ${errorMessage(cause)}` : errorMessage(cause));
		cause = (cause as { cause?: unknown }).cause;
	}
	return parts.at(-1) ?? errorMessage(error);
}

/** Turns an SDK or network error into one readable sentence that says what to check. */
export function describeProviderError(error: unknown, options: DescribeErrorOptions): string {
	const name = errorClassName(error);
	if (name === "APIConnectionTimeoutError") {
		return `${options.label} at ${options.baseUrl} did not answer in time (request timed out).`;
	}
	if (name === "APIConnectionError" && !causeCodes(error).some((code) => UNREACHABLE_CODES.has(code))) {
		return `The connection to ${options.label} at ${options.baseUrl} failed: ${causeOf(error)}.`;
	}
	if (name === "APIConnectionError") {
		return (
			`Could not reach ${options.label} at ${options.baseUrl}: ${causeOf(error)}. ` +
			"Check that the server is running and the base URL is right."
		);
	}
	const status = errorStatus(error);
	const detail = innerMessage(error);
	if (status === 401 || status === 403) {
		return `${options.label} rejected the request (HTTP ${status}): ${detail}. Check the API key in ${options.apiKeyVariable}.`;
	}
	if (status === 404) {
		return `${options.label} answered HTTP 404: ${detail}. Check the model id "${options.modelId}" and the base URL ${options.baseUrl}.`;
	}
	if (status !== undefined) return `${options.label} request failed (HTTP ${status}): ${detail}`;
	const type = errorType(error);
	if (type !== undefined) return `${options.label} error (${type}): ${detail}`;
	return `${options.label} request failed: ${errorMessage(error)}`;
}
