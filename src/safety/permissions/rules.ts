/**
 * The permission rules, entered here: their syntax (`rule-syntax.ts`), what a call is judged on
 * (`rule-subject.ts`), the rule set that matches calls (`rule-set.ts`) and what the modes decide
 * when no rule does (`mode-decision.ts`).
 */
export { compileCommandPattern } from "../shell-policy/index.js";
export { categoryOfAccess, modeDecision, type ToolCategory, toolCategory } from "./mode-decision.js";
export { type RuleEvaluation, RuleSet } from "./rule-set.js";
export { analysisOf, type CallSubject, subjectOf } from "./rule-subject.js";
export {
	commandTools,
	exactCommandSpecifier,
	formatRule,
	type PermissionBehavior,
	type PermissionMode,
	type PermissionRule,
	parseRule,
	permissionModes,
	RuleSyntaxError,
	ruleFamily,
} from "./rule-syntax.js";
