import type { BeforeToolCallContext, BeforeToolCallResult, ToolHooks } from "../engine/types.js";
import { displayPath, partsOfTarget } from "../tools/index.js";
import { categoryOfCall, familyOfCall, subjectOfCall } from "./call-subject.js";
import type { HookPermissionDecision } from "./command-hooks.js";
import type { Confinement, PathCheck } from "./confinement.js";
import { exactPathSpecifier } from "./path-pattern.js";
import {
	type CallSubject,
	exactCommandSpecifier,
	formatRule,
	modeDecision,
	type PermissionMode,
	parseRule,
	type RuleEvaluation,
	type RuleSet,
} from "./rules.js";
import { addRulesToSettingsFile } from "./settings.js";

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
}

/** The permission decision for one call, before the user is asked. */
interface Verdict {
	decision: "allow" | "ask" | "deny";
	reason: string;
	rulesIfAlways: string[];
	/** True when an ask rule (not a mode) asks: allow rules cannot satisfy it, so `always` approves for the session. */
	askedByRule: boolean;
	summary: string;
}

function summaryOf(toolName: string, args: Record<string, unknown>, check: PathCheck | undefined, cwd: string): string {
	if (typeof args.command === "string") return `${toolName}: ${args.command}`;
	if (check) return `${toolName} ${displayPath(cwd, check.lexicalPath)}`;
	const text = JSON.stringify(args);
	return `${toolName} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

function exactRules(toolName: string, subject: CallSubject, evaluation: RuleEvaluation, root: string): string[] {
	if (subject.kind === "command") {
		return evaluation.unallowedParts.map((part) => formatRule(toolName, exactCommandSpecifier(part)));
	}
	if (subject.kind === "path") {
		const views = [...new Set([subject.lexicalPath, subject.realPath])];
		return [...new Set(views.map((path) => formatRule(toolName, exactPathSpecifier(path, root))))];
	}
	return [toolName];
}

/**
 * Decides each call from the rules (deny beats ask beats allow), the mode, protected paths and
 * a command hook's decision, and asks the user when needed — one prompt at a time, re-checking
 * after each answer so that an `always` also settles calls waiting behind it.
 */
export function createPermissionHook(options: PermissionHookOptions) {
	const mode = options.mode ?? "default";
	const { workspace, rules } = options;
	const approvedForSession = new Set<string>();
	let queue: Promise<void> = Promise.resolve();

	const judge = async (context: BeforeToolCallContext, hookDecision?: HookPermissionDecision): Promise<Verdict> => {
		const toolName = context.tool.name;
		const check = workspace.checkTarget(context.target);
		const subject = subjectOfCall(context, check);
		const evaluation = rules.evaluate(toolName, subject, familyOfCall(context));
		const summary = summaryOf(toolName, context.args, check, workspace.cwd);
		const rulesIfAlways = exactRules(toolName, subject, evaluation, rules.base.root);
		const verdict = (decision: Verdict["decision"], reason: string, askedByRule = false): Verdict => ({
			decision,
			reason,
			rulesIfAlways: askedByRule ? [] : rulesIfAlways,
			askedByRule,
			summary,
		});
		if (evaluation.behavior === "deny") {
			return verdict("deny", `the permission rule "${evaluation.rule?.text}" (${evaluation.rule?.source}) denies it`);
		}
		const category = categoryOfCall(context);
		if (mode === "read-only" && category !== "read") return verdict("deny", "the session is in read-only mode");
		if (approvedForSession.has(`${toolName}\u0000${JSON.stringify(subject)}`))
			return verdict("allow", "approved for this session");
		if (check?.protectedBy && options.protectPaths !== false && !evaluation.explicitlyAllowed) {
			return verdict(
				"ask",
				`${displayPath(workspace.cwd, check.lexicalPath)} is a protected path (${check.protectedBy}) and no allow rule names it`,
			);
		}
		if (evaluation.behavior === "ask") {
			if (mode === "yolo") return verdict("allow", "yolo mode");
			return verdict(
				"ask",
				`the permission rule "${evaluation.rule?.text}" (${evaluation.rule?.source}) asks for approval`,
				true,
			);
		}
		if (hookDecision === "ask" && mode !== "yolo") return verdict("ask", "a PreToolUse hook asks for approval", true);
		if (evaluation.behavior === "allow") return verdict("allow", "allowed by a rule");
		if (hookDecision === "allow") return verdict("allow", "allowed by a PreToolUse hook");
		const decision = modeDecision(mode, category);
		const what = category === "execute" ? "commands" : category === "edit" ? "file changes" : `${toolName} calls`;
		return verdict(decision, `${what} need approval in ${mode} mode`);
	};

	const denied = (toolName: string, verdict: Verdict): BeforeToolCallResult => ({
		block: true,
		reason: `Permission denied: this ${toolName} call was not run because ${verdict.reason}. Do not retry it; find another way, or ask the user to change the rule or mode.`,
	});

	const cannotAsk = (toolName: string, verdict: Verdict): BeforeToolCallResult => {
		const rule = verdict.rulesIfAlways.map((text) => `"${text}"`).join(", ");
		const hint = rule ? ` (e.g. ${rule} in permissions.allow of .toolbelt/settings.json)` : "";
		return {
			block: true,
			reason:
				`Permission required: this ${toolName} call needs the user's approval (${verdict.reason}), and this session cannot ask the user, so it was not run. ` +
				`Do not retry it unchanged. Do without it, or tell the user it needs an allow rule${hint} or a different permission mode.`,
		};
	};

	const askUser = async (context: BeforeToolCallContext, verdict: Verdict, signal: AbortSignal | undefined) => {
		const ask = options.ask;
		if (!ask) return cannotAsk(context.tool.name, verdict);
		let answer: PermissionAnswer;
		try {
			answer = await ask(
				{
					toolName: context.tool.name,
					toolCallId: context.toolCall.id,
					args: context.args,
					summary: verdict.summary,
					reason: verdict.reason,
					// Without a file to write to, `always` approves for the session only.
					rulesIfAlways: options.settingsFile ? verdict.rulesIfAlways : [],
				},
				signal,
			);
		} catch {
			answer = "no";
		}
		if (answer === "no") {
			return {
				block: true,
				reason: `The user declined this ${context.tool.name} call (${verdict.summary}). It was not run. Do not retry it unchanged; ask the user how to proceed.`,
			};
		}
		if (answer === "always") await remember(context, verdict);
		return undefined;
	};

	const remember = async (context: BeforeToolCallContext, verdict: Verdict) => {
		const subject = subjectOfCall(context, workspace.checkTarget(context.target));
		approvedForSession.add(`${context.tool.name}\u0000${JSON.stringify(subject)}`);
		if (verdict.rulesIfAlways.length === 0) return;
		const source = options.settingsFile ?? "session";
		for (const text of verdict.rulesIfAlways) rules.add(parseRule(text, "allow", source));
		const file = options.settingsFile;
		if (file)
			await (options.saveRules ?? ((texts) => addRulesToSettingsFile({ file, rules: texts })))(verdict.rulesIfAlways);
	};

	/** Decides one call; `hookDecision` is what a PreToolUse command hook said, if anything. */
	const check = async (
		context: BeforeToolCallContext,
		signal: AbortSignal | undefined,
		hookDecision?: HookPermissionDecision,
	): Promise<BeforeToolCallResult | undefined> => {
		// A call on several files (apply_patch) is decided file by file: a refusal of one refuses it whole.
		for (const part of partsOfTarget(context.target)) {
			const decided = await checkOne(
				part === context.target ? context : { ...context, target: part },
				signal,
				hookDecision,
			);
			if (decided) return decided;
		}
		return undefined;
	};

	const checkOne = async (
		context: BeforeToolCallContext,
		signal: AbortSignal | undefined,
		hookDecision?: HookPermissionDecision,
	): Promise<BeforeToolCallResult | undefined> => {
		const first = await judge(context, hookDecision);
		if (first.decision === "allow") return undefined;
		if (first.decision === "deny") return denied(context.tool.name, first);
		if (!options.ask) return cannotAsk(context.tool.name, first);
		// One prompt at a time; an earlier "always" may have settled this call meanwhile.
		const turn = queue.then(async () => {
			const verdict = await judge(context, hookDecision);
			if (verdict.decision === "allow") return undefined;
			if (verdict.decision === "deny") return denied(context.tool.name, verdict);
			return askUser(context, verdict, signal);
		});
		queue = turn.then(
			() => undefined,
			() => undefined,
		);
		return turn;
	};

	const hooks: ToolHooks = { beforeToolCall: (context, signal) => check(context, signal) };
	return { check, hooks, mode };
}
