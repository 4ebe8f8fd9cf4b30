/**
 * Reading what a command hook printed on stdout (exit 0), strictly. A hook is a guard: an answer
 * toolbelt cannot act on exactly as written — an unknown `permissionDecision`, a field of the wrong
 * type, a decision meant for another event, JSON buried in other text — is never read as "no
 * objection". The callers block the call (PreToolUse) or tell the model (PostToolUse).
 */

/** A decision a PreToolUse hook can return in `hookSpecificOutput.permissionDecision`. */
export type HookPermissionDecision = "allow" | "deny" | "ask";

const permissionDecisions: readonly string[] = ["allow", "deny", "ask"];

/** What a PreToolUse hook's answer asks for, once checked. Text fields are unbounded here. */
export interface PreToolUseAnswer {
	/** The permission decision (`hookSpecificOutput.permissionDecision`, or the legacy `decision`). */
	decision?: HookPermissionDecision;
	/** The reason given with it. */
	reason?: string;
	/** Text for the model (`hookSpecificOutput.additionalContext`). */
	additionalContext?: string;
	/** Replacement arguments, in Claude Code's names (`file_path`), not yet validated. */
	updatedInput?: Record<string, unknown>;
	/** Set when the hook said `continue: false`: the call must not run and the run stops. */
	stop?: { reason?: string };
}

/** What a PostToolUse hook's answer asks for, once checked. */
export interface PostToolUseAnswer {
	/** `decision: "block"`: feedback for the model about the result; the tool did run. */
	feedback?: { reason?: string };
	/** Text for the model (`hookSpecificOutput.additionalContext`). */
	additionalContext?: string;
	/** `continue: false`: stop the run after this batch. */
	stop?: boolean;
}

/** A checked answer, or why it cannot be acted on (a sentence fragment after the hook's name). */
export type HookAnswer<T> = { ok: true; answer: T } | { ok: false; problem: string };

/**
 * Most of each of a hook's streams that is kept (by `runHookProcess`, or by the Perl launcher that
 * reads them); an answer that reaches it may have been cut.
 */
export const HOOK_CAPTURE_BYTES = 1024 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOrUndefined(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

function parsesAsJson(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

/** JSON a hook printed with text around it: a decision toolbelt would otherwise silently ignore. */
const buriedAnswer = /"(?:hookSpecificOutput|permissionDecision|decision|continue|updatedInput)"\s*:/;

/**
 * The JSON object a hook printed on stdout, `{}` when it printed plain text (allowed, as in Claude
 * Code: a hook may log on success), or a problem: JSON that does not parse or is not an object,
 * a decision field inside other text, or output so long it was cut.
 */
export function parseHookStdout(stdout: string): HookAnswer<Record<string, unknown>> {
	const text = stdout.trim();
	if (Buffer.byteLength(stdout) >= HOOK_CAPTURE_BYTES) {
		return { ok: false, problem: "printed 1 MiB or more on stdout, so its answer may have been cut off" };
	}
	if (!text.startsWith("{")) {
		// `[info] …` is a log line, but a JSON array is an answer in the wrong shape.
		if (text.startsWith("[") && parsesAsJson(text)) return { ok: false, problem: "printed JSON that is not an object" };
		if (buriedAnswer.test(text)) {
			return {
				ok: false,
				problem:
					"printed a JSON answer mixed with other text on stdout; print only the JSON object there (logs go to stderr)",
			};
		}
		return { ok: true, answer: {} };
	}
	try {
		const output: unknown = JSON.parse(text);
		if (isRecord(output)) return { ok: true, answer: output };
		return { ok: false, problem: "printed JSON that is not an object" };
	} catch (error) {
		return { ok: false, problem: `printed invalid JSON on stdout (${(error as Error).message})` };
	}
}

/** The fields every event shares; a problem when `hookSpecificOutput` is malformed or names another event. */
function commonFields(
	output: Record<string, unknown>,
	event: "PreToolUse" | "PostToolUse",
): HookAnswer<{ specific: Record<string, unknown>; stop: boolean }> {
	const specific = output.hookSpecificOutput ?? {};
	if (!isRecord(specific)) return { ok: false, problem: "answered a hookSpecificOutput that is not an object" };
	const eventName = specific.hookEventName;
	if (eventName !== undefined && eventName !== event) {
		return {
			ok: false,
			problem: `answered for the event ${JSON.stringify(eventName)} in hookSpecificOutput.hookEventName, but it ran on ${event}`,
		};
	}
	if (output.continue !== undefined && typeof output.continue !== "boolean") {
		return { ok: false, problem: `answered continue: ${JSON.stringify(output.continue)}; it must be true or false` };
	}
	return { ok: true, answer: { specific, stop: output.continue === false } };
}

const decisionRank: Record<HookPermissionDecision, number> = { allow: 1, ask: 2, deny: 3 };

/** The stricter of two decisions (deny beats ask beats allow). */
export function stricterDecision(
	left: HookPermissionDecision | undefined,
	right: HookPermissionDecision | undefined,
): HookPermissionDecision | undefined {
	if (left === undefined) return right;
	if (right === undefined) return left;
	return decisionRank[right] > decisionRank[left] ? right : left;
}

/**
 * Checks a PreToolUse answer. `permissionDecision` must be `allow`, `deny` or `ask` (exactly,
 * lowercase); the legacy `decision` must be `approve` or `block`; when both are given the stricter
 * wins; `updatedInput` must be an object and `continue` a boolean. Anything else is a problem.
 */
export function readPreToolUseAnswer(output: Record<string, unknown>): HookAnswer<PreToolUseAnswer> {
	const common = commonFields(output, "PreToolUse");
	if (!common.ok) return common;
	const { specific, stop } = common.answer;
	const given = specific.permissionDecision;
	if (given !== undefined && (typeof given !== "string" || !permissionDecisions.includes(given))) {
		return {
			ok: false,
			problem: `answered permissionDecision: ${JSON.stringify(given)}, which is not one of "allow", "deny", "ask"`,
		};
	}
	const legacy = output.decision;
	if (legacy !== undefined && legacy !== "approve" && legacy !== "block") {
		return {
			ok: false,
			problem: `answered decision: ${JSON.stringify(legacy)}, which is not "approve" or "block" (or use hookSpecificOutput.permissionDecision)`,
		};
	}
	if (specific.updatedInput !== undefined && !isRecord(specific.updatedInput)) {
		return { ok: false, problem: "answered an updatedInput that is not an object of tool arguments" };
	}
	const fromSpecific = given as HookPermissionDecision | undefined;
	const fromLegacy = legacy === undefined ? undefined : legacy === "approve" ? "allow" : "deny";
	const decision = stricterDecision(fromSpecific, fromLegacy);
	const specificReason = stringOrUndefined(specific.permissionDecisionReason);
	const legacyReason = stringOrUndefined(output.reason);
	const reason = decision === fromSpecific ? (specificReason ?? legacyReason) : (legacyReason ?? specificReason);
	return {
		ok: true,
		answer: {
			decision,
			reason,
			additionalContext: stringOrUndefined(specific.additionalContext),
			updatedInput: specific.updatedInput as Record<string, unknown> | undefined,
			stop: stop ? { reason: stringOrUndefined(output.stopReason) } : undefined,
		},
	};
}

/**
 * Checks a PostToolUse answer: `decision` may only be `block` (feedback; the tool already ran),
 * and a `permissionDecision` or `updatedInput` — which only a PreToolUse hook can give — is a problem,
 * since the hook's author expected it to stop or change a call that has already run.
 */
export function readPostToolUseAnswer(output: Record<string, unknown>): HookAnswer<PostToolUseAnswer> {
	const common = commonFields(output, "PostToolUse");
	if (!common.ok) return common;
	const { specific, stop } = common.answer;
	for (const field of ["permissionDecision", "updatedInput"]) {
		if (specific[field] !== undefined) {
			return {
				ok: false,
				problem: `answered ${field}, which only a PreToolUse hook can give (the tool had already run)`,
			};
		}
	}
	if (output.decision !== undefined && output.decision !== "block") {
		return {
			ok: false,
			problem: `answered decision: ${JSON.stringify(output.decision)}; after a call only "block" (feedback) is possible`,
		};
	}
	return {
		ok: true,
		answer: {
			feedback: output.decision === "block" ? { reason: stringOrUndefined(output.reason) } : undefined,
			additionalContext: stringOrUndefined(specific.additionalContext),
			stop,
		},
	};
}
