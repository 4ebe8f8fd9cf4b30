import type { AnyAgentTool, ToolTarget } from "../engine/index.js";
import type { CommandTarget } from "../tools/index.js";
import type { PathCheck } from "./confinement.js";
import { type CallSubject, categoryOfAccess, ruleFamily, subjectOf, type ToolCategory } from "./permissions/rules.js";

/** The parts of a hook context that say what a call is. */
export interface CallFacts {
	tool: AnyAgentTool;
	target?: ToolTarget;
}

/** The shell dialect a call's command is written in, from its declared target; undefined for no command target. */
export function dialectOf(target: ToolTarget | undefined): CommandTarget["dialect"] | undefined {
	const dialect = (target as Partial<CommandTarget> | undefined)?.dialect;
	return dialect === "bash" || dialect === "powershell" ? dialect : undefined;
}

/**
 * What the permission rules judge a call on, from its declared target: the command of an
 * `execute` target with a shell dialect, else the checked path, else only the tool.
 */
export function subjectOfCall(call: CallFacts, check: PathCheck | undefined): CallSubject {
	const { target } = call;
	const dialect = dialectOf(target);
	if (dialect && typeof target?.command === "string") {
		return subjectOf(call.tool.name, { command: target.command }, undefined, dialect);
	}
	if (check) {
		const paths = { lexicalPath: check.lexicalPath, realPath: check.realPath, scansBelow: target?.access === "list" };
		return subjectOf(call.tool.name, {}, paths);
	}
	return { kind: "tool" };
}

/** The rule names that govern a call: its tool's and those of its access (see `ruleFamily`). */
export function familyOfCall(call: CallFacts): readonly string[] {
	return ruleFamily(call.tool.name, call.target?.access, dialectOf(call.target));
}

/** How the modes treat a call: by its declared access, then the tool's `readOnlyHint`. */
export function categoryOfCall(call: CallFacts): ToolCategory {
	const { target } = call;
	return categoryOfAccess(target?.access, typeof target?.command === "string", call.tool.annotations?.readOnlyHint);
}
