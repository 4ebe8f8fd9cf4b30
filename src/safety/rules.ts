import { join } from "node:path";
import { commandCandidates, type ShellDialect, splitCommand } from "./command-split.js";
import { compilePathPattern, matchesPathPattern, type PathPattern, type PathPatternBase } from "./path-pattern.js";

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
	if (specifier !== undefined && specifier !== "*") rule.specifier = specifier;
	return rule;
}

/** Writes a rule in its canonical form: `tool` or `tool(specifier)`. */
export function formatRule(toolName: string, specifier?: string): string {
	return specifier === undefined ? toolName : `${toolName}(${specifier})`;
}

/** What a call is judged on: its commands, its path, or only its tool name. */
export type CallSubject =
	| { kind: "command"; parts: string[] }
	| {
			kind: "path";
			lexicalPath: string;
			realPath: string;
			/** The tool reads what lies below the path (ls, grep, find), so a deny for its contents applies. */
			scansBelow?: boolean;
	  }
	| { kind: "tool" };

/**
 * Builds the subject of a call: its command (split in `dialect`, by default the shell the tool
 * is named after), else its resolved paths, else only the tool.
 */
export function subjectOf(
	toolName: string,
	args: { command?: unknown },
	paths?: { lexicalPath: string; realPath: string; scansBelow?: boolean },
	dialect: ShellDialect | undefined = commandTools[toolName],
): CallSubject {
	if (dialect && typeof args.command === "string")
		return { kind: "command", parts: splitCommand(args.command, dialect) };
	if (paths) return paths.scansBelow ? { kind: "path", ...paths, scansBelow: true } : { kind: "path", ...paths };
	return { kind: "tool" };
}

/** The outcome of matching a call against the rules. */
export interface RuleEvaluation {
	/** The strongest behavior among matching rules; undefined when no rule decides (the mode does). */
	behavior?: PermissionBehavior;
	/** The deny or ask rule that decided, for the message. */
	rule?: PermissionRule;
	/** True when an allow rule with a specifier names this call (needed for protected paths). */
	explicitlyAllowed: boolean;
	/** For commands: the parts that no allow rule covers (what "always" must add). */
	unallowedParts: string[];
}

/** Matches calls against a fixed set of rules; patterns are compiled once. */
export class RuleSet {
	private readonly rules: PermissionRule[] = [];
	private readonly compiled = new Map<PermissionRule, PathPattern | RegExp>();

	constructor(
		rules: readonly PermissionRule[],
		/** Where path patterns are anchored. */
		readonly base: PathPatternBase,
	) {
		for (const rule of rules) this.add(rule);
	}

	/** Adds a rule (e.g. after the user answered "always"). */
	add(rule: PermissionRule): void {
		this.rules.push(rule);
	}

	/** All rules, in the order added. */
	list(): readonly PermissionRule[] {
		return this.rules;
	}

	/** Matches a call: deny beats ask beats allow; a command is allowed only if every part is. */
	evaluate(toolName: string, subject: CallSubject, family: readonly string[] = legacyFamily(toolName)): RuleEvaluation {
		const relevant = this.rules.filter((rule) => family.includes(rule.toolName));
		// The first match decides: no need to test the rest, nor to build a closure per call.
		const denied = relevant.find((rule) => rule.behavior === "deny" && this.matches(rule, subject));
		if (denied) return { behavior: "deny", rule: denied, explicitlyAllowed: false, unallowedParts: [] };
		const asked = relevant.find((rule) => rule.behavior === "ask" && this.matches(rule, subject));
		const allows = relevant.filter((rule) => rule.behavior === "allow");
		let allowed: boolean;
		let explicitlyAllowed = false;
		let unallowedParts: string[] = [];
		if (subject.kind === "command") {
			unallowedParts = subject.parts.filter((part) => !allows.some((rule) => this.matchesPart(rule, part, false)));
			allowed = subject.parts.length > 0 && unallowedParts.length === 0;
		} else if (subject.kind === "path") {
			// Both views must be covered, by one rule or two: the path as written and where it really leads.
			const views = [subject.lexicalPath, subject.realPath];
			allowed = views.every((path) => allows.some((rule) => this.covers(rule, path)));
			const specific = allows.filter((rule) => rule.specifier !== undefined);
			explicitlyAllowed = views.every((path) => specific.some((rule) => this.covers(rule, path)));
		} else {
			allowed = allows.some((rule) => rule.specifier === undefined);
		}
		if (asked) return { behavior: "ask", rule: asked, explicitlyAllowed, unallowedParts };
		return { behavior: allowed ? "allow" : undefined, explicitlyAllowed, unallowedParts };
	}

	/**
	 * Does a deny or ask rule match the call? Any view of the call is enough: the real path or
	 * the lexical one, any part of a compound command, or that part stripped of wrappers such as
	 * `sudo` or `env X=1`.
	 */
	private matches(rule: PermissionRule, subject: CallSubject): boolean {
		if (rule.specifier === undefined) return true;
		if (subject.kind === "command") return subject.parts.some((part) => this.matchesPart(rule, part, true));
		if (subject.kind === "tool") return false;
		const pattern = this.pathPattern(rule);
		const views = [subject.lexicalPath, subject.realPath];
		// A search of `~/.ssh` reads `~/.ssh/*`: a rule about the contents applies to the directory.
		if (subject.scansBelow) views.push(...views.map((path) => join(path, "\u0001")));
		return views.some((path) => matchesPathPattern(pattern, path));
	}

	/** Does an allow rule cover `path`? A rule without a specifier covers every path. */
	private covers(rule: PermissionRule, path: string): boolean {
		return rule.specifier === undefined || matchesPathPattern(this.pathPattern(rule), path);
	}

	private matchesPart(rule: PermissionRule, part: string, loose: boolean): boolean {
		if (rule.specifier === undefined) return true;
		if (!commandTools[rule.toolName]) return false;
		const pattern = this.commandPattern(rule);
		if (!loose) return pattern.test(part);
		return commandCandidates(part).some((candidate) => pattern.test(candidate));
	}

	private pathPattern(rule: PermissionRule): PathPattern {
		let pattern = this.compiled.get(rule);
		if (!pattern || pattern instanceof RegExp) {
			pattern = compilePathPattern(rule.specifier ?? "**", this.base);
			this.compiled.set(rule, pattern);
		}
		return pattern;
	}

	private commandPattern(rule: PermissionRule): RegExp {
		let pattern = this.compiled.get(rule);
		if (!(pattern instanceof RegExp)) {
			pattern = compileCommandPattern(rule.specifier ?? "*", commandTools[rule.toolName] ?? "bash");
			this.compiled.set(rule, pattern);
		}
		return pattern;
	}
}

/**
 * Compiles a command specifier: `npm run test:*` matches `npm run test` alone or followed by
 * arguments; `*` elsewhere matches any text (`git * --dry-run`); `\*` is a literal star; anything
 * else must equal the command (whitespace collapsed). PowerShell commands match case-insensitively.
 */
export function compileCommandPattern(specifier: string, dialect: ShellDialect): RegExp {
	let text = specifier.trim().replace(/\s+/g, " ");
	const prefix = text.endsWith(":*") && !text.endsWith("\\:*");
	if (prefix) text = text.slice(0, -2).trimEnd();
	let source = "";
	for (let index = 0; index < text.length; index++) {
		const char = text[index] as string;
		if (char === "\\" && text[index + 1] === "*") {
			source += "\\*";
			index++;
		} else if (char === "*") {
			source += ".*";
		} else {
			source += char.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
		}
	}
	return new RegExp(`^${source}${prefix ? "(?: .*)?" : ""}$`, dialect === "powershell" ? "is" : "s");
}

/** Escapes a command so that, as a specifier, it matches exactly that command. */
export function exactCommandSpecifier(command: string): string {
	const escaped = command.replace(/\*/g, "\\*");
	// A command that itself ends in ":*" (escaped above to ":\*") stays literal.
	return escaped;
}

/** The rule family of a built-in by its name, for callers that have no target. */
function legacyFamily(toolName: string): readonly string[] {
	const access = toolCategory(toolName) === "read" ? (toolName === "read" ? "read" : "list") : undefined;
	return ruleFamily(toolName, toolName === "write" ? "write" : access);
}

/** How a tool is treated by the modes. */
export type ToolCategory = "read" | "edit" | "execute" | "other";

/**
 * The category of a tool: built-ins by name, others by their `readOnlyHint` annotation.
 * @deprecated Guards use `categoryOfAccess` (by the call's declared access); kept for callers without a target.
 */
export function toolCategory(toolName: string, readOnlyHint?: boolean): ToolCategory {
	if (["read", "ls", "grep", "find"].includes(toolName)) return "read";
	if (toolName === "write" || toolName === "edit") return "edit";
	if (commandTools[toolName]) return "execute";
	return readOnlyHint === true ? "read" : "other";
}

/** The category of a call by its declared access: what the modes decide on. */
export function categoryOfAccess(
	access: string | undefined,
	hasCommand: boolean,
	readOnlyHint?: boolean,
): ToolCategory {
	if (access === "read" || access === "list") return "read";
	if (access === "write") return "edit";
	if (hasCommand) return "execute";
	return readOnlyHint === true ? "read" : "other";
}

/** What a mode decides for a call that no rule matched. */
export function modeDecision(mode: PermissionMode, category: ToolCategory): PermissionBehavior {
	if (category === "read" || mode === "yolo") return "allow";
	if (mode === "read-only") return "deny";
	if (mode === "accept-edits" && category === "edit") return "allow";
	return "ask";
}
