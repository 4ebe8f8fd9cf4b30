/**
 * Checks rules when they are loaded, so that a rule that can never apply is an error rather
 * than a silent hole: `--deny 'bsah(rm:*)'` must not leave `rm` running. Tool names are checked
 * against the tools that exist (built-ins, MCP tools, names the embedder adds); specifiers are
 * checked by `parseRule` itself.
 */
import { allToolNames, editDistance, pathToolNames } from "../../tools/index.js";
import { commandTools, type PermissionRule, RuleSyntaxError } from "./rules.js";

/** Tools being added to toolbelt whose rules are accepted already. */
const upcomingToolNames: readonly string[] = ["apply_patch", "bash_output", "bash_kill"];

/** How the MCP client names a server's tool: `<server>__<tool>` (normalised, and lower-cased in rules). */
const mcpToolName = /^[a-z0-9_-]+__[a-z0-9_-]+$/;

/** Thrown for a rule that names a tool that does not exist. */
export class UnknownToolRuleError extends RuleSyntaxError {
	/** The closest known tool name, when one is close. */
	readonly suggestion?: string;

	constructor(rule: PermissionRule, knownNames: readonly string[]) {
		const suggestion = closestName(rule.toolName, knownNames);
		const where = sourceName(rule);
		const guess = suggestion ? ` Did you mean "${suggestion}"?` : "";
		super(
			rule.text,
			`from ${where}: there is no tool "${rule.toolName}", so the rule would never apply.${guess} ` +
				`A rule names a built-in tool (${knownNames.join(", ")}) or an MCP tool as server__tool.`,
		);
		this.name = "UnknownToolRuleError";
		if (suggestion) this.suggestion = suggestion;
	}
}

/** Where a rule came from, for messages: the flag or the settings file. */
function sourceName(rule: PermissionRule): string {
	if (rule.source === "command line") return `the --${rule.behavior} flag`;
	return rule.source === "session" ? "this session" : rule.source;
}

/** The known name nearest to `name` (at most 3 edits, or a shared prefix), if any. */
function closestName(name: string, knownNames: readonly string[]): string | undefined {
	let best: { name: string; distance: number } | undefined;
	for (const known of knownNames) {
		const distance = known.startsWith(name) || name.startsWith(known) ? 1 : editDistance(name, known);
		if (distance <= 3 && (!best || distance < best.distance)) best = { name: known, distance };
	}
	return best?.name;
}

/**
 * Throws `UnknownToolRuleError` for the first rule whose tool is neither a built-in (nor one
 * being added: apply_patch, bash_output, bash_kill), nor an MCP tool (`server__tool`), nor one
 * of `extraToolNames` (the embedder's own tools); throws `RuleSyntaxError` for a specifier on
 * a tool whose calls have no command or path (it could never match).
 */
export function checkRuleToolNames(rules: readonly PermissionRule[], extraToolNames: readonly string[] = []): void {
	const known = [...allToolNames, ...upcomingToolNames, ...extraToolNames.map((name) => name.toLowerCase())];
	for (const rule of rules) {
		if (!known.includes(rule.toolName) && !mcpToolName.test(rule.toolName)) throw new UnknownToolRuleError(rule, known);
		if (
			rule.specifier !== undefined &&
			!commandTools[rule.toolName] &&
			!(pathToolNames as readonly string[]).includes(rule.toolName)
		) {
			throw new RuleSyntaxError(
				rule.text,
				`from ${sourceName(rule)}: it can never match, because ${rule.toolName} calls have no command or path to match; write the tool name alone ("${rule.toolName}")`,
			);
		}
	}
}
