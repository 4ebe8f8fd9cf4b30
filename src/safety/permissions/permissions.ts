import type { BeforeToolCallContext, BeforeToolCallResult, ToolHooks, ToolTarget } from "../../engine/index.js";
import { displayPath, partsOfTarget } from "../../tools/index.js";
import { categoryOfCall, dialectOf, familyOfCall, subjectOfCall } from "../call-subject.js";
import type { Confinement, PathCheck } from "../confinement.js";
import type { HookPermissionDecision } from "../hooks/command-hooks.js";
import { addRulesToSettingsFile } from "../settings/settings.js";
import { judgeWriteTargets } from "../shell-policy/command-writes.js";
import {
	isShellParserLoaded,
	loadShellParser,
	loadShellParserSoon,
	ShellParserNotLoaded,
} from "../shell-policy/index.js";
import { isReadOnlyCommand } from "../shell-policy/read-only/read-only-judgement.js";
import { exactPathSpecifier } from "./path-pattern.js";
import { cannotAskResult, declinedResult, deniedResult, type Verdict } from "./permission-results.js";
import { type CallFacts, ruleVerdict, verdictOf, writeVerdict } from "./permission-verdicts.js";
import {
	analysisOf,
	type CallSubject,
	commandTools,
	exactCommandSpecifier,
	formatRule,
	modeDecision,
	type PermissionMode,
	parseRule,
	type RuleSet,
} from "./rules.js";

/** The user's answer to a permission prompt. `always` also approves identical calls from now on. */
export type PermissionAnswer = "yes" | "no" | "always";

/** What the user is asked about. */
export interface PermissionRequest {
	/** The tool to run. */
	toolName: string;
	/** The id of the call. */
	toolCallId: string;
	/** The validated arguments. */
	args: Record<string, unknown>;
	/** One line saying what would happen, e.g. `bash: npm test` or `write src/app.ts`. */
	summary: string;
	/** Why approval is needed, e.g. `commands need approval in default mode`. */
	reason: string;
	/** The allow rules an `always` answer adds to the project settings (empty when it can only approve for this session). */
	rulesIfAlways: string[];
	/** The call's target as the workspace resolved it (one file of a multi-file call): a prompt may read the file a write replaces to show the change. */
	target?: ToolTarget;
}

/** Asks the user about a call. Rejecting or throwing counts as `no`. */
export type AskPermission = (request: PermissionRequest, signal: AbortSignal | undefined) => Promise<PermissionAnswer>;

/** Options of `createPermissionHook`. */
export interface PermissionHookOptions {
	/** The workspace roots: checks each call's resolved target and knows protected paths. */
	workspace: Confinement;
	/** The rules from settings and flags; `always` answers are added here too. */
	rules: RuleSet;
	/** What happens to calls no rule decides. Default: `default`. */
	mode?: PermissionMode;
	/** Asks the user. Without it (print mode, MCP), every ask becomes a deny whose reason tells the model what to do. */
	ask?: AskPermission;
	/** The settings file `always` answers are written to (the project's). Default: none (kept for the session only). */
	settingsFile?: string;
	/** Writes the rules of an `always` answer to `settingsFile` (the safety layer also keeps the folder's trust record current). Default: `addRulesToSettingsFile`. */
	saveRules?: (rules: string[]) => Promise<void>;
	/** Require an explicit allow rule (or the user's approval) for writes to protected paths. Default: true. */
	protectPaths?: boolean;
	/**
	 * In default mode, run without asking the commands on the read-only list (`ls`, `cat`, `grep`,
	 * `head`, … with harmless options only, reading inside the workspace; README "Read-only
	 * commands"). Default: true.
	 */
	autoAllowReadOnlyCommands?: boolean;
}

/** The state of one permission hook: its options and what the session approved so far. */
interface PermissionState {
	options: PermissionHookOptions;
	mode: PermissionMode;
	/** Calls approved with `always` that no rule can express, by `sessionKey`. */
	approvedForSession: Set<string>;
	/** The prompt in progress: one at a time. */
	queue: Promise<void>;
}

function summaryOf(toolName: string, args: Record<string, unknown>, check: PathCheck | undefined, cwd: string): string {
	if (typeof args.command === "string") return `${toolName}: ${args.command}`;
	if (check) return `${toolName} ${displayPath(cwd, check.lexicalPath)}`;
	const text = JSON.stringify(args);
	return `${toolName} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

/** The allow rules that name exactly this call: the unallowed parts, and the parts whose writes need naming. */
function exactRules(facts: Omit<CallFacts, "rulesIfAlways" | "summary">, root: string): string[] {
	const { toolName, subject, evaluation, writes } = facts;
	if (subject.kind === "command") {
		const writing = [writes.protectedTarget, writes.unconfined].flatMap((problem) =>
			problem ? [subject.parts[problem.part] ?? ""] : [],
		);
		const parts = [...new Set([...evaluation.unallowedParts, ...writing])];
		return parts.map((part) => formatRule(toolName, exactCommandSpecifier(part)));
	}
	if (subject.kind === "path") {
		const views = [...new Set([subject.lexicalPath, subject.realPath])];
		return [...new Set(views.map((path) => formatRule(toolName, exactPathSpecifier(path, root))))];
	}
	return [toolName];
}

/** The key of a call approved for the session: its tool and what it acts on. */
function sessionKey(toolName: string, subject: CallSubject): string {
	const key = subject.kind === "command" ? { kind: subject.kind, parts: subject.parts } : subject;
	return `${toolName}\u0000${JSON.stringify(key)}`;
}

/**
 * The subject a call is judged on. A command is read first without its shell's parser: a line of
 * plain words needs none (`plainWords`), so a start whose commands are all plain never loads
 * it. Anything else loads the parser (on the first such command only) and is read again.
 */
async function judgedSubject(context: BeforeToolCallContext, check: PathCheck | undefined): Promise<CallSubject> {
	const dialect = dialectOf(context.target);
	if (dialect !== undefined && typeof context.target?.command === "string" && !isShellParserLoaded(dialect)) {
		try {
			return subjectOfCall(context, check);
		} catch (error) {
			if (!(error instanceof ShellParserNotLoaded)) throw error;
		}
		await loadShellParser(dialect);
	}
	return subjectOfCall(context, check);
}

/** Gathers what a call is judged on: its path check, subject, rule evaluation and write targets. */
async function gatherFacts(
	state: PermissionState,
	context: BeforeToolCallContext,
	hookDecision: HookPermissionDecision | undefined,
): Promise<CallFacts> {
	const { workspace, rules } = state.options;
	const toolName = context.tool.name;
	const check = workspace.checkTarget(context.target);
	const subject = await judgedSubject(context, check);
	const evaluation = rules.evaluate(toolName, subject, familyOfCall(context));
	const writes =
		subject.kind === "command"
			? await judgeWriteTargets({
					toolName,
					analysis: analysisOf(subject),
					workspace,
					rules,
					protectPaths: state.options.protectPaths !== false,
				})
			: {};
	const category = categoryOfCall(context);
	const readOnlyCommand =
		subject.kind === "command" &&
		state.mode === "default" &&
		category === "execute" &&
		state.options.autoAllowReadOnlyCommands !== false &&
		evaluation.behavior === undefined &&
		(await isReadOnlyCommand(analysisOf(subject), workspace, rules));
	const partial = { context, hookDecision, toolName, category, check, subject, evaluation, writes, readOnlyCommand };
	return {
		...partial,
		summary: summaryOf(toolName, context.args, check, workspace.cwd),
		rulesIfAlways: exactRules(partial, rules.base.root),
	};
}

/**
 * Decides one call from the rules (deny beats ask beats allow), the mode, protected paths, the
 * files a command writes and a command hook's decision.
 */
function decide(state: PermissionState, facts: CallFacts): Verdict {
	const { mode } = state;
	const { evaluation, writes, check } = facts;
	if (evaluation.behavior === "deny") return ruleVerdict(facts, "deny");
	if (writes.denied) return writeVerdict(facts, "deny", writes.denied);
	if (mode === "read-only" && facts.category !== "read")
		return verdictOf(facts, "deny", "the session is in read-only mode");
	if (state.approvedForSession.has(sessionKey(facts.toolName, facts.subject))) {
		return verdictOf(facts, "allow", "approved for this session");
	}
	if (check?.protectedBy && state.options.protectPaths !== false && !evaluation.explicitlyAllowed) {
		const path = displayPath(state.options.workspace.cwd, check.lexicalPath);
		return verdictOf(facts, "ask", `${path} is a protected path (${check.protectedBy}) and no allow rule names it`, {
			details: { protectedBy: check.protectedBy },
		});
	}
	if (writes.protectedTarget) return writeVerdict(facts, "ask", writes.protectedTarget);
	if (writes.asked && mode !== "yolo") return writeVerdict(facts, "ask", writes.asked);
	if (evaluation.behavior === "ask") {
		if (mode === "yolo") return verdictOf(facts, "allow", "yolo mode");
		return ruleVerdict(facts, "ask");
	}
	if (facts.hookDecision === "ask" && mode !== "yolo") {
		return verdictOf(facts, "ask", "a PreToolUse hook asks for approval", { askedByRule: true });
	}
	const allowedBy =
		evaluation.behavior === "allow"
			? "allowed by a rule"
			: facts.hookDecision === "allow"
				? "allowed by a PreToolUse hook"
				: undefined;
	if (allowedBy) {
		// An allow rule for a command is not an allow rule for the files it writes.
		if (writes.unconfined && mode !== "yolo" && !allowsWholeTool(state, facts.toolName)) {
			return writeVerdict(facts, "ask", writes.unconfined);
		}
		return verdictOf(facts, "allow", allowedBy);
	}
	if (facts.readOnlyCommand)
		return verdictOf(facts, "allow", "a read-only command (default mode runs these without asking)");
	const decision = modeDecision(mode, facts.category);
	const what =
		facts.category === "execute" ? "commands" : facts.category === "edit" ? "file changes" : `${facts.toolName} calls`;
	return verdictOf(facts, decision, `${what} need approval in ${mode} mode`);
}

/** True when a rule allows every call of the tool (`bash`): then every command may write anything. */
function allowsWholeTool(state: PermissionState, toolName: string): boolean {
	const name = toolName.toLowerCase();
	return state.options.rules
		.list()
		.some((rule) => rule.behavior === "allow" && rule.toolName === name && rule.specifier === undefined);
}

async function judge(
	state: PermissionState,
	context: BeforeToolCallContext,
	hookDecision: HookPermissionDecision | undefined,
): Promise<Verdict> {
	return decide(state, await gatherFacts(state, context, hookDecision));
}

async function askUser(
	state: PermissionState,
	context: BeforeToolCallContext,
	verdict: Verdict,
	signal: AbortSignal | undefined,
): Promise<BeforeToolCallResult | undefined> {
	const ask = state.options.ask;
	if (!ask) return cannotAskResult(context.tool.name, verdict);
	let answer: PermissionAnswer;
	try {
		answer = await ask(
			{
				toolName: context.tool.name,
				toolCallId: context.toolCall.id,
				args: context.args,
				target: context.target,
				summary: verdict.summary,
				reason: verdict.reason,
				// Without a file to write to, `always` approves for the session only.
				rulesIfAlways: state.options.settingsFile ? verdict.rulesIfAlways : [],
			},
			signal,
		);
	} catch {
		answer = "no";
	}
	if (answer === "no") {
		return declinedResult(context.tool.name, verdict);
	}
	if (answer === "always") await remember(state, context, verdict);
	return undefined;
}

async function remember(state: PermissionState, context: BeforeToolCallContext, verdict: Verdict): Promise<void> {
	const { workspace, rules, settingsFile } = state.options;
	state.approvedForSession.add(
		sessionKey(context.tool.name, subjectOfCall(context, workspace.checkTarget(context.target))),
	);
	if (verdict.rulesIfAlways.length === 0) return;
	for (const text of verdict.rulesIfAlways) rules.add(parseRule(text, "allow", settingsFile ?? "session"));
	if (!settingsFile) return;
	const save =
		state.options.saveRules ?? ((texts: string[]) => addRulesToSettingsFile({ file: settingsFile, rules: texts }));
	await save(verdict.rulesIfAlways);
}

/** Decides one call; `hookDecision` is what a PreToolUse command hook said, if anything. */
async function checkCall(
	state: PermissionState,
	context: BeforeToolCallContext,
	signal: AbortSignal | undefined,
	hookDecision?: HookPermissionDecision,
): Promise<BeforeToolCallResult | undefined> {
	const first = await judge(state, context, hookDecision);
	if (first.decision === "allow") return undefined;
	if (first.decision === "deny") return deniedResult(context.tool.name, first);
	if (!state.options.ask) return cannotAskResult(context.tool.name, first);
	// One prompt at a time; an earlier "always" may have settled this call meanwhile.
	const turn = state.queue.then(async () => {
		// Git's config may have changed while this call waited (an earlier call in the queue ran).
		if (context.target?.access === "write") await state.options.workspace.refreshGitPaths();
		const verdict = await judge(state, context, hookDecision);
		if (verdict.decision === "allow") return undefined;
		if (verdict.decision === "deny") return deniedResult(context.tool.name, verdict);
		return askUser(state, context, verdict, signal);
	});
	state.queue = turn.then(
		() => undefined,
		() => undefined,
	);
	return turn;
}

/**
 * Decides each call from the rules (deny beats ask beats allow), the mode, protected paths, the
 * files a command writes and a command hook's decision, and asks the user when needed — one
 * prompt at a time, re-checking after each answer so that an `always` also settles calls
 * waiting behind it. Every block carries `PermissionBlockDetails` in its `details`.
 */
export function createPermissionHook(options: PermissionHookOptions) {
	const state: PermissionState = {
		options,
		mode: options.mode ?? "default",
		approvedForSession: new Set(),
		queue: Promise.resolve(),
	};
	const check = async (
		context: BeforeToolCallContext,
		signal: AbortSignal | undefined,
		hookDecision?: HookPermissionDecision,
	): Promise<BeforeToolCallResult | undefined> => {
		// Where git's config points may have changed since the last call (a hooks folder, an include):
		// read once per call, before any of its files is judged.
		const parts = partsOfTarget(context.target);
		if (parts.some((part) => part?.access === "write")) await options.workspace.refreshGitPaths();
		// A call on several files (apply_patch) is decided file by file: a refusal of one refuses it whole.
		for (const part of parts) {
			const call = part === context.target ? context : { ...context, target: part };
			const decided = await checkCall(state, call, signal, hookDecision);
			if (decided) return decided;
		}
		return undefined;
	};
	const hooks: ToolHooks = { beforeToolCall: (context, signal) => check(context, signal) };
	/** Loads, in the pause after the tools are made, the parser of each command tool named (`bash`, `powershell`). */
	const prepareFor = (toolNames: readonly string[]) => {
		for (const name of toolNames) {
			const dialect = commandTools[name.toLowerCase()];
			if (dialect) loadShellParserSoon(dialect);
		}
	};
	return { check, hooks, mode: state.mode, prepareFor };
}
