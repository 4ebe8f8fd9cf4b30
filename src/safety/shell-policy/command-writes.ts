/**
 * Redirections are writes: `echo x > /elsewhere` or `git status > .git/hooks/pre-commit` writes
 * a file as surely as the write tool does. This judges the files a command writes against the
 * workspace roots, the protected paths and the write/edit rules, so that an allow rule for a
 * command never allows writing outside the workspace or to a protected path by itself.
 */
import { isAbsolute, resolve } from "node:path";
import type { Confinement, PathCheck } from "../confinement.js";
import type { BlockedWriteTarget } from "../permissions/permission-details.js";
import type { PermissionRule, RuleSet } from "../permissions/rules.js";
import type { CommandAnalysis, OpaqueConstruct, WriteTarget } from "./command-analysis.js";
import { kernelPath } from "./kernel-path.js";
import { isLiteral, type ShellWord } from "./shell-words.js";

/** Files every command may write: they hold nothing. */
const harmlessTargets = /^\/dev\/(?:null|stdout|stderr|fd\/\d+)$/;

/** True for a write target that holds nothing (`/dev/null`, the standard streams). */
export function isHarmlessTarget(word: ShellWord): boolean {
	return isLiteral(word) && harmlessTargets.test(word.value);
}

/** A write target that needs more than the command's own allow rule. */
export interface WriteTargetProblem {
	/** Set when the command is opaque: it may write any path, so every write/edit deny rule applies. */
	construct?: OpaqueConstruct;
	/** The target and what is wrong with it. */
	target: BlockedWriteTarget;
	/** The index of the simple command that writes it. */
	part: number;
	/** A write/edit rule that denies or asks for this path, when one does. */
	rule?: PermissionRule;
	/** The protected pattern it falls under, for `protected`. */
	protectedBy?: string;
}

/** What judging a command's write targets found, strongest first. */
export interface WriteTargetJudgement {
	/** A write/edit deny rule covers a target (or could: an unreadable target under such a rule). */
	denied?: WriteTargetProblem;
	/** A write/edit ask rule covers a target. */
	asked?: WriteTargetProblem;
	/** A target is a protected path that no rule names. */
	protectedTarget?: WriteTargetProblem;
	/** A target lies outside every workspace root, or cannot be read, and no rule names it. */
	unconfined?: WriteTargetProblem;
}

/**
 * Where a redirection target points and how it relates to the workspace, by today's
 * `Confinement.checkWritePath` (the tools' workspace resolves it). Kept as the one call into the workspace so that
 * it can be adapted in one place.
 */
export function checkWritePath(workspace: Confinement, path: string): Promise<PathCheck | undefined> {
	return workspace.checkWritePath(path);
}

/**
 * A `~` prefix other than the user's home (`~root/x`, `~+/x`, `~-/x`, `~2/x`): bash expands it to
 * another user's home, `$PWD`, `$OLDPWD` or the directory stack, which the rules cannot place.
 */
function otherTilde(path: string): boolean {
	return path.startsWith("~") && path !== "~" && !path.startsWith("~/");
}

/**
 * The directories a relative target may be taken from: the cwd and every literal `cd` target;
 * undefined when a `cd` cannot be read. Bash's `cd` folds `link/..` away (`-L`), but goes where
 * the kernel takes it when that fails or under `-P`: both count.
 */
async function baseDirectories(cwd: string, analysis: CommandAnalysis, homeDir: string): Promise<string[] | undefined> {
	const bases = [cwd];
	for (const change of analysis.directoryChanges) {
		if (change.path === undefined || bases.length > 16 || otherTilde(change.path)) return undefined;
		const path = change.path;
		const home = path === "~" || path.startsWith("~/") ? resolve(homeDir, path.slice(2)) : undefined;
		for (const base of [...bases]) {
			bases.push(home ?? resolve(base, path));
			const physical = home ? await kernelPath(homeDir, path.slice(2)) : await kernelPath(base, path);
			if (physical !== undefined) bases.push(physical);
		}
	}
	return [...new Set(bases)];
}

/**
 * Where a literal target is written from each base, as the kernel takes it (`link/../x` beside the
 * link's target); undefined when a `..` in it cannot be followed.
 */
async function targetPaths(word: ShellWord, bases: readonly string[], homeDir: string): Promise<string[] | undefined> {
	const path = word.value;
	if (word.tilde) return path.includes("..") ? onePath(await kernelPath(homeDir, path.slice(2))) : [path];
	const paths: string[] = [];
	for (const base of isAbsolute(path) ? ["/"] : bases) {
		const kernel = await kernelPath(base, path);
		if (kernel === undefined) return undefined;
		paths.push(kernel);
	}
	return paths;
}

function onePath(path: string | undefined): string[] | undefined {
	return path === undefined ? undefined : [path];
}

/** Options of `judgeWriteTargets`. */
export interface JudgeWriteTargetsOptions {
	/** The command tool (`bash`), whose allow rules may name a target. */
	toolName: string;
	/** The command's analysis. */
	analysis: CommandAnalysis;
	/** The workspace: roots and protected paths. */
	workspace: Confinement;
	/** The rules: write/edit rules judge each target; the tool's allow rules may name it. */
	rules: RuleSet;
	/** Whether protected paths need a rule naming them. */
	protectPaths: boolean;
}

/** Judges every file the command writes; the empty object when all are fine. */
export async function judgeWriteTargets(options: JudgeWriteTargetsOptions): Promise<WriteTargetJudgement> {
	const { analysis, workspace, rules } = options;
	const judgement: WriteTargetJudgement = {};
	// An opaque command may write anywhere (`eval`, `shopt -s cdable_vars; cd x && tee f`): it
	// matches every write/edit deny rule, as it matches every deny rule of its tool.
	if (analysis.opaque) {
		const deny = writeDenyRule(rules);
		const target: BlockedWriteTarget = { path: analysis.opaque.text, problem: "unreadable" };
		if (deny) judgement.denied = { target, part: 0, rule: deny, construct: analysis.opaque };
	}
	if (analysis.writes.length === 0) return judgement;
	const bases = await baseDirectories(workspace.cwd, analysis, rules.base.homeDir);
	for (const write of analysis.writes) {
		const named = (text: string) =>
			rules.allowRuleNaming(options.toolName, analysis.parts[write.part] ?? "", text) !== undefined;
		if (isHarmlessTarget(write.word)) continue;
		const relative = !isAbsolute(write.word.value) && !write.word.tilde;
		if (
			!isLiteral(write.word) ||
			(relative && bases === undefined) ||
			(write.word.tilde && otherTilde(write.word.value))
		) {
			judgeUnreadable(judgement, write, rules, named(write.word.raw));
			continue;
		}
		const paths = await targetPaths(write.word, bases ?? [], rules.base.homeDir);
		if (paths === undefined) {
			judgeUnreadable(judgement, write, rules, named(write.word.raw));
			continue;
		}
		for (const path of paths) await judgePath(judgement, options, write, path, named(write.word.raw));
	}
	return judgement;
}

/** A target the parser cannot read counts as matching every write/edit deny rule; else it needs approval. */
function judgeUnreadable(judgement: WriteTargetJudgement, write: WriteTarget, rules: RuleSet, named: boolean): void {
	const target: BlockedWriteTarget = { path: write.word.raw, problem: "unreadable" };
	const deny = writeDenyRule(rules);
	if (deny) judgement.denied ??= { target, part: write.part, rule: deny };
	else if (!named) judgement.unconfined ??= { target, part: write.part };
}

async function judgePath(
	judgement: WriteTargetJudgement,
	options: JudgeWriteTargetsOptions,
	write: WriteTarget,
	path: string,
	named: boolean,
): Promise<void> {
	const check = await checkWritePath(options.workspace, path);
	if (!check) return;
	const evaluation = options.rules.evaluate("write", {
		kind: "path",
		lexicalPath: check.lexicalPath,
		realPath: check.realPath,
	});
	const problem = (kind: BlockedWriteTarget["problem"]): WriteTargetProblem => ({
		target: { path: write.word.value, problem: kind },
		part: write.part,
	});
	if (evaluation.behavior === "deny") {
		judgement.denied ??= { ...problem("ruled"), rule: evaluation.rule };
		return;
	}
	if (evaluation.behavior === "ask") judgement.asked ??= { ...problem("ruled"), rule: evaluation.rule };
	if (evaluation.explicitlyAllowed || named) return;
	if (check.protectedBy && options.protectPaths) {
		judgement.protectedTarget ??= { ...problem("protected"), protectedBy: check.protectedBy };
	} else if (check.root === undefined) {
		judgement.unconfined ??= problem("outside");
	}
}

/** The first write/edit deny rule: what a write the rules cannot read is taken to match. */
function writeDenyRule(rules: RuleSet): PermissionRule | undefined {
	return rules
		.list()
		.find((rule) => rule.behavior === "deny" && (rule.toolName === "write" || rule.toolName === "edit"));
}
