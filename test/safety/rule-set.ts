import { parseRule, RuleSet } from "../../src/safety/permissions/rules.js";

/** Where the test rule sets anchor path patterns. */
export const ruleBase = { root: "/proj", homeDir: "/home/user" };

/** A rule set from allow, ask and deny rule texts, anchored at `ruleBase`. */
export function ruleSet(allow: string[], ask: string[] = [], deny: string[] = []): RuleSet {
	return new RuleSet(
		[
			...allow.map((text) => parseRule(text, "allow", "test")),
			...ask.map((text) => parseRule(text, "ask", "test")),
			...deny.map((text) => parseRule(text, "deny", "test")),
		],
		ruleBase,
	);
}
