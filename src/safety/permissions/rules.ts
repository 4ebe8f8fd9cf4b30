import { join } from "node:path";
import { pathToolNames } from "../../tools/index.js";
import {
	analyzeCommand,
	type CommandAnalysis,
	compileCommandPattern,
	compileFormPattern,
	type FormPattern,
	matchesForm,
	type OpaqueConstruct,
	type ShellDialect,
	specifierProblem,
} from "../shell-policy/index.js";
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

/** The analysis of a command subject (kept for callers of the first wave: it is computed with the subject now). */
export function analysisOf(subject: CallSubject & { kind: "command" }): CommandAnalysis {
	return subject.analysis;
}

/** Writes a rule in its canonical form: `tool` or `tool(specifier)`. */
export function formatRule(toolName: string, specifier?: string): string {
	return specifier === undefined ? toolName : `${toolName}(${specifier})`;
}

/** What a call is judged on: its commands, its path, or only its tool name. */
export type CallSubject =
	| {
			kind: "command";
			/** The command line, whitespace collapsed. */
			command: string;
			/** The simple commands, as written. */
			parts: string[];
			/** The shell syntax of the command. Default: `bash`. */
			dialect?: ShellDialect;
			/** What the command runs and writes, and whether the rules can read it. */
			analysis: CommandAnalysis;
	  }
	| {
			kind: "path";
			lexicalPath: string;
			realPath: string;
			/** The tool reads what lies below the path (ls, grep, find), so a deny for its contents applies. */
			scansBelow?: boolean;
	  }
	| { kind: "tool" };

/**
 * Builds the subject of a call: its command (analysed in `dialect`, by default the shell the tool
 * is named after; the parser of the dialect must be loaded, `loadShellParser`), else its resolved
 * paths, else only the tool.
 */
export function subjectOf(
	toolName: string,
	args: { command?: unknown },
	paths?: { lexicalPath: string; realPath: string; scansBelow?: boolean },
	dialect: ShellDialect | undefined = commandTools[toolName],
): CallSubject {
	if (dialect && typeof args.command === "string") {
		const analysis = analyzeCommand(args.command, dialect);
		const command = args.command.trim().replace(/\s+/g, " ");
		return { kind: "command", command, parts: analysis.parts, dialect, analysis };
	}
	if (paths) return paths.scansBelow ? { kind: "path", ...paths, scansBelow: true } : { kind: "path", ...paths };
	return { kind: "tool" };
}

/** The outcome of matching a call against the rules. */
export interface RuleEvaluation {
	/** The strongest behavior among matching rules; undefined when no rule decides (the mode does). */
	behavior?: PermissionBehavior;
	/** The deny or ask rule that decided, for the message. */
	rule?: PermissionRule;
	/**
	 * Set when the deny or ask rule decided only because the command hides its programs behind a
	 * construct the parser cannot reduce (`$x f`, `… | sh`, `case`): such a command counts as
	 * matching every deny and ask rule of its tool.
	 */
	construct?: OpaqueConstruct;
	/** True when an allow rule with a specifier names this call (needed for protected paths). */
	explicitlyAllowed: boolean;
	/** For commands: the parts that no allow rule covers (what "always" must add). */
	unallowedParts: string[];
}

/** Matches calls against a fixed set of rules; patterns are compiled once. */
export class RuleSet {
	private readonly rules: PermissionRule[] = [];
	private readonly compiled = new Map<PermissionRule, PathPattern | RegExp>();
	private readonly forms = new Map<PermissionRule, FormPattern>();

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
		const denied = this.strongest(relevant, "deny", subject);
		if (denied) return { behavior: "deny", ...denied, explicitlyAllowed: false, unallowedParts: [] };
		const asked = this.strongest(relevant, "ask", subject);
		const allows = relevant.filter((rule) => rule.behavior === "allow");
		let allowed: boolean;
		let explicitlyAllowed = false;
		let unallowedParts: string[] = [];
		if (subject.kind === "command") {
			unallowedParts = this.unallowedParts(allows, subject);
			allowed = (subject.parts.length > 0 || subject.analysis.opaque !== undefined) && unallowedParts.length === 0;
		} else if (subject.kind === "path") {
			// Both views must be covered, by one rule or two: the path as written and where it really leads.
			const views = [subject.lexicalPath, subject.realPath];
			allowed = views.every((path) => allows.some((rule) => this.covers(rule, path)));
			const specific = allows.filter((rule) => rule.specifier !== undefined);
			explicitlyAllowed = views.every((path) => specific.some((rule) => this.covers(rule, path)));
		} else {
			allowed = allows.some((rule) => rule.specifier === undefined);
		}
		if (asked) return { behavior: "ask", ...asked, explicitlyAllowed, unallowedParts };
		return { behavior: allowed ? "allow" : undefined, explicitlyAllowed, unallowedParts };
	}

	/**
	 * The first rule of `behavior` that matches the call; failing that, for a command the parser
	 * cannot reduce to literal programs, the first such rule of its tool, with the construct.
	 */
	private strongest(
		relevant: readonly PermissionRule[],
		behavior: "deny" | "ask",
		subject: CallSubject,
	): { rule: PermissionRule; construct?: OpaqueConstruct } | undefined {
		const matching = relevant.find((rule) => rule.behavior === behavior && this.matches(rule, subject));
		const construct = subject.kind === "command" ? subject.analysis.opaque : undefined;
		if (matching)
			return construct && commandTools[matching.toolName] ? { rule: matching, construct } : { rule: matching };
		if (!construct) return undefined;
		const rule = relevant.find((candidate) => candidate.behavior === behavior && commandTools[candidate.toolName]);
		return rule ? { rule, construct } : undefined;
	}

	/**
	 * The parts of a command no allow rule covers, and the commands its runners run that none
	 * covers (an allow rule for `find` is not one for the `rm` of `find -exec rm`). An opaque
	 * command is covered only by a rule for the whole tool, or one naming it exactly (no `*`).
	 */
	private unallowedParts(allows: readonly PermissionRule[], subject: CallSubject & { kind: "command" }): string[] {
		if (allows.some((rule) => rule.specifier === undefined && commandTools[rule.toolName])) return [];
		const { analysis } = subject;
		if (analysis.opaque) {
			const exact = allows.some(
				(rule) =>
					rule.specifier !== undefined && !/(?<!\\)\*/.test(rule.specifier) && this.matchesPart(rule, subject.command),
			);
			return exact ? [] : [subject.command];
		}
		const needed = [...analysis.parts, ...analysis.inner.flat()];
		return [...new Set(needed.filter((part) => !allows.some((rule) => this.matchesPart(rule, part))))];
	}

	/**
	 * Does a deny or ask rule match the call? Any view of the call is enough: the real path or
	 * the lexical one, any part of a compound command, or that part stripped of wrappers such as
	 * `sudo` or `env X=1`.
	 */
	private matches(rule: PermissionRule, subject: CallSubject): boolean {
		if (rule.specifier === undefined) return true;
		if (subject.kind === "command") {
			if (!commandTools[rule.toolName]) return false;
			const pattern = this.formPattern(rule);
			return subject.analysis.forms.some((forms) => forms.some((form) => matchesForm(pattern, form)));
		}
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

	/** Does an allow rule cover a simple command as written? Allow rules never see through wrappers. */
	private matchesPart(rule: PermissionRule, part: string): boolean {
		if (rule.specifier === undefined) return true;
		if (!commandTools[rule.toolName]) return false;
		return this.commandPattern(rule).test(part);
	}

	/**
	 * The allow rule of `toolName` that covers `part` and names `target` after a redirection
	 * (`bash(make > build.log)`), or undefined: only such a rule allows writing to a path that
	 * needs one (outside the workspace, protected).
	 */
	allowRuleNaming(toolName: string, part: string, target: string): PermissionRule | undefined {
		const name = toolName.toLowerCase();
		return this.rules.find(
			(rule) =>
				rule.behavior === "allow" &&
				rule.toolName === name &&
				rule.specifier !== undefined &&
				// A redirection or tee in the rule, or an exact rule (no `*`): the user read the target.
				(/>|\btee\b/.test(rule.specifier) || !/(?<!\\)\*/.test(rule.specifier)) &&
				rule.specifier.includes(target) &&
				this.matchesPart(rule, part),
		);
	}

	private pathPattern(rule: PermissionRule): PathPattern {
		let pattern = this.compiled.get(rule);
		if (!pattern || pattern instanceof RegExp) {
			pattern = compilePathPattern(rule.specifier ?? "**", this.base);
			this.compiled.set(rule, pattern);
		}
		return pattern;
	}

	private formPattern(rule: PermissionRule): FormPattern {
		let pattern = this.forms.get(rule);
		if (!pattern) {
			pattern = compileFormPattern(rule.specifier ?? "*", commandTools[rule.toolName] ?? "bash");
			this.forms.set(rule, pattern);
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

export { compileCommandPattern };

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
	// A declared "execute" is what it says, whatever the tool's annotations claim.
	if (hasCommand || access === "execute") return "execute";
	return readOnlyHint === true ? "read" : "other";
}

/** What a mode decides for a call that no rule matched. */
export function modeDecision(mode: PermissionMode, category: ToolCategory): PermissionBehavior {
	if (category === "read" || mode === "yolo") return "allow";
	if (mode === "read-only") return "deny";
	if (mode === "accept-edits" && category === "edit") return "allow";
	return "ask";
}
