import { isSecretVariableName } from "../tools/index.js";

/** What replaces a secret in a recorded session. */
export const REDACTED = "[redacted]";

/**
 * Key formats that are secrets wherever they appear: provider API keys, cloud and forge tokens,
 * signed tokens, private key blocks, and the credential of an `Authorization` header.
 */
const KNOWN_SECRET_PATTERNS: readonly RegExp[] = [
	/\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}/g,
	/\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g,
	/\bgithub_pat_[A-Za-z0-9_]{22,}/g,
	/\bglpat-[A-Za-z0-9_-]{20,}/g,
	/\bnpm_[A-Za-z0-9]{36}\b/g,
	/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
	/\bAIza[0-9A-Za-z_-]{35}/g,
	/\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
	/\bhf_[A-Za-z0-9]{30,}/g,
	/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
	/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
	/(?<=\b(?:Bearer|Basic|Token)\s+)[A-Za-z0-9._~+/=-]{12,}/gi,
];

/**
 * A value shorter than this is not redacted when it merely equals a secret variable's value:
 * `1`, `true` or a port number would otherwise blank out half a transcript.
 */
const SHORTEST_SECRET_VALUE = 8;

/** Replaces secrets in text: known key formats, and the values of the given secret variables. */
export type Redactor = (text: string) => string;

function escapeForRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Builds the redactor of a recording: every known key format, plus the value of each variable of
 * `env` whose name marks a secret (`isSecretVariableName`: `OPENAI_API_KEY`, `GITHUB_TOKEN`, …)
 * and is at least 8 characters long. Longest values are matched first, so a value that contains
 * another is replaced whole.
 */
export function createRedactor(env: Record<string, string | undefined>): Redactor {
	const values = Object.entries(env)
		.filter(
			([name, value]) => value !== undefined && value.length >= SHORTEST_SECRET_VALUE && isSecretVariableName(name),
		)
		.map(([, value]) => value as string)
		.sort((left, right) => right.length - left.length);
	const environmentPattern =
		values.length > 0 ? new RegExp([...new Set(values)].map(escapeForRegExp).join("|"), "g") : undefined;
	return (text) => {
		let result = text;
		if (environmentPattern) result = result.replace(environmentPattern, REDACTED);
		for (const pattern of KNOWN_SECRET_PATTERNS) {
			pattern.lastIndex = 0;
			if (pattern.test(result)) {
				pattern.lastIndex = 0;
				result = result.replace(pattern, REDACTED);
			}
		}
		return result;
	};
}

/**
 * The JSON text of `value` with every string redacted (object keys stay as they are). One walk,
 * done while serializing, so nothing unredacted is ever written.
 */
export function redactedJson(value: unknown, redact: Redactor): string {
	return JSON.stringify(value, (_key, item: unknown) => (typeof item === "string" ? redact(item) : item));
}
