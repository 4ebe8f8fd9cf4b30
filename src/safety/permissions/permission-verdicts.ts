import type { BeforeToolCallContext } from "../../engine/index.js";
import type { PathCheck } from "../confinement.js";
import type { HookPermissionDecision } from "../hooks/command-hooks.js";
import type { WriteTargetJudgement, WriteTargetProblem } from "../shell-policy/command-writes.js";
import type { PermissionBlockDetails } from "./permission-details.js";
import type { Verdict } from "./permission-results.js";
import type { CallSubject, PermissionRule, RuleEvaluation, ToolCategory } from "./rules.js";

// The facts a permission judgement stands on, and the verdicts it gives worded for the model: which
// rule, construct or write target decided, and what the model can do about it.

/** What one call is judged on, computed once per judgement. */
export interface CallFacts {
	context: BeforeToolCallContext;
	hookDecision?: HookPermissionDecision;
	toolName: string;
	category: ToolCategory;
	check?: PathCheck;
	subject: CallSubject;
	evaluation: RuleEvaluation;
	writes: WriteTargetJudgement;
	/** A command default mode runs without asking (on the read-only list, reading inside the workspace). */
	readOnlyCommand: boolean;
	summary: string;
	rulesIfAlways: string[];
}

/** A verdict on the call of `facts`, its reason worded for the model. */
export function verdictOf(
	facts: CallFacts,
	decision: Verdict["decision"],
	reason: string,
	extra: Partial<Pick<Verdict, "askedByRule" | "rewriteHint">> & { details?: Partial<Verdict["details"]> } = {},
): Verdict {
	const askedByRule = extra.askedByRule === true;
	return {
		decision,
		reason,
		rulesIfAlways: askedByRule ? [] : facts.rulesIfAlways,
		askedByRule,
		summary: facts.summary,
		details: { type: "permission", toolName: facts.toolName, category: facts.category, ...extra.details },
		...(extra.rewriteHint ? { rewriteHint: extra.rewriteHint } : {}),
	};
}

function ruleFacts(rule: PermissionRule | undefined): PermissionBlockDetails["rule"] {
	return rule ? { text: rule.text, source: rule.source, behavior: rule.behavior } : undefined;
}

/** The verdict of a deny or ask rule, its reason, naming the construct when that is why it applies. */
export function ruleVerdict(facts: CallFacts, decision: "deny" | "ask"): Verdict {
	const { rule, construct } = facts.evaluation;
	const ruleText = `the permission rule "${rule?.text}" (${rule?.source})`;
	const action = decision === "deny" ? "denies it" : "asks for approval";
	const details = { rule: ruleFacts(rule), ...(construct ? { construct } : {}) };
	if (!construct)
		return verdictOf(facts, decision, `${ruleText} ${action}`, { details, askedByRule: decision === "ask" });
	const reason = `the command holds a construct the permission rules cannot see through (${construct.construct}: ${construct.text}), so ${ruleText} applies to it and ${action}`;
	return verdictOf(facts, decision, reason, { details, askedByRule: decision === "ask", rewriteHint: construct.hint });
}

/** The verdict a write-target problem gives, worded for the model. */
export function writeVerdict(facts: CallFacts, decision: "deny" | "ask", problem: WriteTargetProblem): Verdict {
	const { target, rule } = problem;
	const details = { writeTarget: target, rule: ruleFacts(rule), protectedBy: problem.protectedBy };
	const what = `the command writes ${target.path}`;
	if (problem.construct && rule) {
		const { construct } = problem;
		const reason = `the command holds a construct the permission rules cannot see through (${construct.construct}: ${construct.text}), so it may write any path, and the rule "${rule.text}" (${rule.source}) applies to it and denies it`;
		return verdictOf(facts, decision, reason, { details, rewriteHint: construct.hint });
	}
	if (target.problem === "unreadable" && rule) {
		const reason = `${what}, a path the permission rules cannot read, so the rule "${rule.text}" (${rule.source}) applies to it and denies it`;
		return verdictOf(facts, decision, reason, { details, rewriteHint: "write the target path literally" });
	}
	if (rule) {
		const action = decision === "deny" ? "denies it" : "asks for approval";
		return verdictOf(facts, decision, `${what}, and the rule "${rule.text}" (${rule.source}) ${action}`, {
			details,
			askedByRule: decision === "ask",
		});
	}
	const why =
		target.problem === "protected"
			? `a protected path (${problem.protectedBy})`
			: target.problem === "outside"
				? "outside the workspace"
				: "a path the permission rules cannot read";
	return verdictOf(facts, decision, `${what}, ${why}, and no rule names it`, { details });
}
