/** A fixed set of rules matched against calls: deny beats ask beats allow, opaque commands match every deny and ask rule. */
import { join } from "node:path";
import {
	compileCommandPattern,
	compileFormPattern,
	type FormPattern,
	matchesForm,
	type OpaqueConstruct,
} from "../shell-policy/index.js";
import { toolCategory } from "./mode-decision.js";
import {
	compilePathPattern,
	matchesPathPattern,
	mayMatchBelow,
	type PathPattern,
	type PathPatternBase,
} from "./path-pattern.js";
import type { CallSubject } from "./rule-subject.js";
import { commandTools, type PermissionBehavior, type PermissionRule, ruleFamily } from "./rule-syntax.js";

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

	/**
	 * The first deny or ask rule of `toolName`'s family (`read` for reads) that may match a path
	 * below the directory, or undefined: a listing or a recursive search of the directory would read
	 * such a path, and nothing would hide it from the output (`grep -r`, `ls` in a shell).
	 */
	restrictedBelow(toolName: string, lexicalPath: string, realPath: string): PermissionRule | undefined {
		const family = legacyFamily(toolName);
		return this.rules.find(
			(rule) =>
				(rule.behavior === "deny" || rule.behavior === "ask") &&
				family.includes(rule.toolName) &&
				!commandTools[rule.toolName] &&
				(rule.specifier === undefined ||
					[lexicalPath, realPath].some((directory) => mayMatchBelow(this.pathPattern(rule), directory))),
		);
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

/** The rule family of a built-in by its name, for callers that have no target. */
function legacyFamily(toolName: string): readonly string[] {
	const access = toolCategory(toolName) === "read" ? (toolName === "read" ? "read" : "list") : undefined;
	return ruleFamily(toolName, toolName === "write" ? "write" : access);
}
