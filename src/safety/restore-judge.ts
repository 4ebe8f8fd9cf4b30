import type { Confinement } from "./confinement.js";
import { RuleSet, ruleFamily, subjectOf } from "./permissions/rules.js";

/** Why undo must not write an absolute path, or undefined when it may (see `restoreJudgeOf`). */
export type RestoreJudge = (path: string) => Promise<string | undefined>;

/** The rule names a restore is judged under: those of a write (`write`, `edit`). */
const writeFamily = ruleFamily("write", "write");

/**
 * Undo's judge: each restore is checked as a write of the tools would be, on the workspace's own
 * disk, when the undo runs — its real path inside the roots, not a protected path
 * (`Confinement.refusalOfWrite`), and no deny rule of the session's (settings, flags) naming its
 * path for `write` or `edit`. A rule without a path (`edit` alone) is about the model's use of a
 * tool, not about a path, and an ask rule does not stop it either: the person runs undo. No allow
 * rule opens a protected path here. Resolves a reason, never throws.
 */
export function restoreJudgeOf(confinement: Confinement, rules: RuleSet): RestoreJudge {
	return async (path) => {
		const refusal = await confinement.refusalOfWrite(path);
		if (refusal) return refusal;
		try {
			const check = await confinement.checkWritePath(path);
			if (!check) return undefined;
			const subject = subjectOf("write", {}, { lexicalPath: check.lexicalPath, realPath: check.realPath });
			// Looked up at each call: "always" answers may add rules during the session.
			const pathDenials = rules.list().filter((rule) => rule.behavior === "deny" && rule.specifier !== undefined);
			if (pathDenials.length === 0) return undefined;
			const evaluation = new RuleSet(pathDenials, rules.base).evaluate("write", subject, writeFamily);
			if (evaluation.behavior !== "deny" || !evaluation.rule) return undefined;
			return `denied by the rule ${evaluation.rule.text} (${evaluation.rule.source}); put it back by hand if you meant to`;
		} catch (error) {
			return `could not be judged: ${error instanceof Error ? error.message : String(error)}`;
		}
	};
}
