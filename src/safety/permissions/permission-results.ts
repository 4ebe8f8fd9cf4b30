/**
 * The results a permission decision becomes: the sentence the model reads (what happened and
 * what to do next) and the `PermissionBlockDetails` programs read, from one verdict.
 */
import type { BeforeToolCallResult } from "../../engine/index.js";
import type { PermissionBlockDetails } from "./permission-details.js";

/** The permission decision for one call, before the user is asked. */
export interface Verdict {
	/** Run it, ask the user, or refuse it. */
	decision: "allow" | "ask" | "deny";
	/** Why, as a clause for the model's message (e.g. `commands need approval in default mode`). */
	reason: string;
	/** The allow rules that would let exactly this call run; what an `always` answer adds. */
	rulesIfAlways: string[];
	/** True when an ask rule (not a mode) asks: allow rules cannot satisfy it, so `always` approves for the session. */
	askedByRule: boolean;
	/** One line saying what the call would do, e.g. `bash: npm test`. */
	summary: string;
	/** The facts behind a block, without `kind` (known only when the block is written). */
	details: Omit<PermissionBlockDetails, "kind" | "suggestedAllowRules" | "reason">;
	/** Advice for the model when a rule applied only because the command could not be read. */
	rewriteHint?: string;
}

/** The block result of a verdict, with its reason for the model and its details for programs. */
function blockOf(verdict: Verdict, kind: PermissionBlockDetails["kind"], reason: string): BeforeToolCallResult {
	const details: PermissionBlockDetails = {
		...verdict.details,
		kind,
		reason: verdict.reason,
		suggestedAllowRules: kind === "needs-approval" ? verdict.rulesIfAlways : [],
	};
	return { block: true, reason, details };
}

/** The block for a refused call: the rule, mode or path that refuses it, and what to do instead. */
export function deniedResult(toolName: string, verdict: Verdict): BeforeToolCallResult {
	const next = verdict.rewriteHint
		? `If the command does not do what the rule forbids, write it plainly: ${verdict.rewriteHint}. Otherwise find another way, or ask the user to change the rule.`
		: "Do not retry it; find another way, or ask the user to change the rule or mode.";
	return blockOf(
		verdict,
		"denied",
		`Permission denied: this ${toolName} call was not run because ${verdict.reason}. ${next}`,
	);
}

/** The block for a call that needs approval where nobody can be asked, naming the allow rule that would let it run. */
export function cannotAskResult(toolName: string, verdict: Verdict): BeforeToolCallResult {
	const rule = verdict.rulesIfAlways.map((text) => `"${text}"`).join(", ");
	const hint = rule ? ` (e.g. ${rule} in permissions.allow of .toolbelt/settings.json)` : "";
	const plainly = verdict.rewriteHint ? ` Or write the command plainly: ${verdict.rewriteHint}.` : "";
	return blockOf(
		verdict,
		"needs-approval",
		`Permission required: this ${toolName} call needs the user's approval (${verdict.reason}), and this session cannot ask the user, so it was not run. ` +
			`Do not retry it unchanged. Do without it, or tell the user it needs an allow rule${hint} or a different permission mode.${plainly}`,
	);
}

/** The block for a call the user declined. */
export function declinedResult(toolName: string, verdict: Verdict): BeforeToolCallResult {
	return blockOf(
		verdict,
		"declined",
		`The user declined this ${toolName} call (${verdict.summary}). It was not run. Do not retry it unchanged; ask the user how to proceed.`,
	);
}
