import { isAbsolute, join, relative, sep } from "node:path";
import type { ToolHooks } from "../engine/index.js";
import { isWorkspaceTarget } from "../tools/index.js";
import { type RuleSet, ruleFamily } from "./permissions/rules.js";

/**
 * A hook that makes read deny rules govern listings and searches (ls, grep, find, and any tool
 * whose target has `list` access): it gives the call's target a `hides` filter, which the tool
 * honours on every backend, so a denied file's content never appears in search output and its
 * name never in a listing, whatever `path` or `include` the call used. The call itself still
 * runs; a path that is itself denied was already blocked by the permission rules.
 */
export function createReadDenyFilter(rules: RuleSet): ToolHooks {
	return {
		beforeToolCall: ({ tool, target }) => {
			if (target?.access !== "list" || !isWorkspaceTarget(target) || !target.resolved) return undefined;
			const family = ruleFamily(tool.name, "list");
			const denies = rules.list().some((rule) => rule.behavior === "deny" && family.includes(rule.toolName));
			if (!denies) return undefined;
			const { absolutePath: base, realPath: realBase } = target.resolved;
			target.hides = (path) => {
				const below = relative(base, path);
				const outside = below === ".." || below.startsWith(`..${sep}`) || isAbsolute(below);
				// Found below the searched folder: its real path is the folder's real path plus the rest.
				const realPath = outside ? path : below === "" ? realBase : join(realBase, below);
				return rules.evaluate(tool.name, { kind: "path", lexicalPath: path, realPath }, family).behavior === "deny";
			};
			return undefined;
		},
	};
}
