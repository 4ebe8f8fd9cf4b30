/**
 * Permission rules as written: `tool` or `tool(specifier)` with a behavior, parsed and checked
 * when they load (a specifier that can never match is an error), and the tool families rules
 * apply to.
 */
import { pathToolNames } from "../../tools/index.js";
import { type ShellDialect, specifierProblem } from "../shell-policy/index.js";
import { compilePathPattern } from "./path-pattern.js";

/** What a rule does with the calls it matches. When several match: deny beats ask beats allow. */
export type PermissionBehavior = "allow" | "ask" | "deny";

/**
 * What happens to a call that no rule matches.
 * - `default`: reading and searching run; writes, edits and commands ask.
 * - `accept-edits`: reading and file edits run; commands ask.
 * - `read-only`: only tools that change nothing run; everything else is denied, whatever the allow rules say.
 * - `yolo`: everything runs without asking; deny rules still hold.
 */
export type PermissionMode = "default" | "accept-edits" | "read-only" | "yolo";

/** Every permission mode, for flag validation. */
export const permissionModes: readonly PermissionMode[] = ["default", "accept-edits", "read-only", "yolo"];

/**
 * Throws a `TypeError` naming the known modes when `mode` is none of them. For library callers: the
 * CLI and the settings schema check their own, and an unknown name such as another agent's
 * "acceptEdits" would otherwise ask for every change.
 */
export function assertPermissionMode(mode: string): asserts mode is PermissionMode {
	if (!(permissionModes as readonly string[]).includes(mode)) {
		throw new TypeError(`Unknown permission mode "${mode}": use one of ${permissionModes.join(", ")}.`);
	}
}

/** One parsed rule: `Tool` or `Tool(specifier)`. */
export interface PermissionRule {
	/** allow, ask or deny. */
	behavior: PermissionBehavior;
	/** The tool name, lower-cased (`Bash(…)` and `bash(…)` are the same rule). */
	toolName: string;
	/** The text between the parentheses, if any: a command pattern or a path pattern. */
	specifier?: string;
	/** The rule as written, for messages. */
	text: string;
	/** Where the rule came from: a settings file path, `command line`, or `session`. */
	source: string;
}

/** Tools whose specifier is a command pattern, and the shell syntax their commands use. */
export const commandTools: Readonly<Record<string, ShellDialect>> = { bash: "bash", powershell: "powershell" };

/**
 * The rule names that govern a call besides its tool's own name, by what the call does: an
 * `edit(…)` rule covers every whole-file write too, a `read(…)` rule covers every listing and
 * search (so `deny: ["read(~/.ssh/**)"]` also stops a grep there), and a command's shell name
 * covers a renamed shell tool. By access, never by tool name: a renamed built-in keeps its rules.
 */
export function ruleFamily(toolName: string, access?: string, dialect?: string): readonly string[] {
	const name = toolName.toLowerCase();
	const related = access === "write" ? ["edit"] : access === "read" || access === "list" ? ["read"] : [];
	return [...new Set([name, ...related, ...(dialect ? [dialect] : [])])];
}

/** Thrown for a rule that cannot be parsed. */
export class RuleSyntaxError extends Error {
	constructor(rule: string, problem: string) {
		super(`Invalid permission rule ${JSON.stringify(rule)}: ${problem}`);
		this.name = "RuleSyntaxError";
	}
}

/** Parses `Tool` or `Tool(specifier)`. Throws `RuleSyntaxError` on anything else. */
export function parseRule(text: string, behavior: PermissionBehavior, source: string): PermissionRule {
	const trimmed = text.trim();
	const match = /^([A-Za-z0-9_.:-]+)(?:\((.*)\))?$/s.exec(trimmed);
	if (!match?.[1]) {
		throw new RuleSyntaxError(
			text,
			'expected "Tool" or "Tool(specifier)", e.g. "bash(npm run test:*)" or "edit(src/**)"',
		);
	}
	const toolName = match[1].toLowerCase();
	const specifier = match[2]?.trim();
	if (specifier === "")
		throw new RuleSyntaxError(text, "the parentheses are empty; write the tool name alone to match every call");
	const rule: PermissionRule = { behavior, toolName, text: trimmed, source };
	if (specifier !== undefined && specifier !== "*") {
		checkSpecifier(text, toolName, specifier);
		rule.specifier = specifier;
	}
	return rule;
}

/**
 * Throws `RuleSyntaxError` for a specifier that is malformed or can never match: a command
 * pattern spanning several commands (`npm test && npm run build`), one the split would change
 * (a comment, a leading `time`), or a path pattern leaving the project with `..`.
 */
function checkSpecifier(text: string, toolName: string, specifier: string): void {
	if (commandTools[toolName]) {
		const problem = specifierProblem(specifier);
		if (problem) throw new RuleSyntaxError(text, `it can never match: ${problem}`);
		return;
	}
	if ((pathToolNames as readonly string[]).includes(toolName)) {
		if (/(?:^|\/)\.\.(?:\/|$)/.test(specifier)) {
			throw new RuleSyntaxError(
				text,
				"it can never match: paths are matched inside their anchor, so '..' leads nowhere; write an absolute path as //path or a home path as ~/path",
			);
		}
		try {
			compilePathPattern(specifier, { root: "/", homeDir: "/" }).test("probe");
		} catch (error) {
			throw new RuleSyntaxError(text, `the path pattern is malformed (${(error as Error).message})`);
		}
	}
	// Other tools' calls have nothing a specifier could match; `checkRuleToolNames` says so once the tool is known to exist.
}

/** Writes a rule in its canonical form: `tool` or `tool(specifier)`. */
export function formatRule(toolName: string, specifier?: string): string {
	return specifier === undefined ? toolName : `${toolName}(${specifier})`;
}

/** Escapes a command so that, as a specifier, it matches exactly that command. */
export function exactCommandSpecifier(command: string): string {
	const escaped = command.replace(/\*/g, "\\*");
	// A command that itself ends in ":*" (escaped above to ":\*") stays literal.
	return escaped;
}
