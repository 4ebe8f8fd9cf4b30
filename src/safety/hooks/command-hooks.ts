import { randomUUID } from "node:crypto";
import type {
	AfterToolCallContext,
	BeforeToolCallContext,
	ToolHooks,
	ToolResultContent,
	ToolTarget,
} from "../../engine/index.js";
import { formatSize, truncateTail, validateToolArguments } from "../../engine/index.js";
import { isWorkspaceTarget } from "../../tools/index.js";
import type { HookCommandSettings, HookMatcherSettings } from "../settings/settings.js";
import {
	type HookPermissionDecision,
	readPostToolUseAnswer,
	readPreToolUseAnswer,
	stricterDecision,
} from "./hook-output.js";
import { appendContext, withSideEffects } from "./hook-result-patch.js";
import {
	checkedAnswer,
	type HookFailure,
	type HookRun,
	type HookRunSettings,
	type HookSandbox,
	runHook,
} from "./hook-run.js";

export type { HookPermissionDecision } from "./hook-output.js";
export type { HookEvent, HookFailure, HookSandbox } from "./hook-run.js";

/** Options of `createCommandHooks`. */
export interface CommandHooksOptions {
	/** The tools' working directory; hooks run here and receive it as `cwd`. */
	cwd: string;
	/** The project directory, given to hooks as `TOOLBELT_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`. Default: `cwd`. */
	projectDir?: string;
	/**
	 * Where hook processes run, when `cwd` is not on this machine (a remote workspace: hooks run
	 * here and get the remote `cwd` in their input). Default: `cwd`.
	 */
	processCwd?: string;
	/** `hooks.PreToolUse` entries. Default: none. */
	preToolUse?: readonly HookMatcherSettings[];
	/** `hooks.PostToolUse` entries. Default: none. */
	postToolUse?: readonly HookMatcherSettings[];
	/** Sent as `session_id`. Default: a random UUID per instance. */
	sessionId?: string;
	/** Sent as `permission_mode`. Default: `default`. */
	permissionMode?: string;
	/** Timeout of a hook without its own `timeout`, in seconds. Default: 60. */
	defaultTimeoutSeconds?: number;
	/** Extra environment variables for hook commands. Default: none. */
	env?: Record<string, string>;
	/**
	 * Told about every hook that failed (crash, timeout, missing script) or gave an answer that
	 * cannot be acted on (bad JSON, an unknown decision), whatever its `onError`. Default: none.
	 */
	onHookError?: (error: HookFailure) => void;
	/**
	 * The sandbox commands run in, asked at each hook run: when there is one, every hook runs
	 * inside it too, so a hook never runs on the host a program a sandboxed command could have
	 * written (`node_modules/.bin/prettier` behind `npx prettier`, a script in the repository, a
	 * folder of the workspace on `PATH`). Default: none (hooks run directly).
	 */
	sandbox?: () => HookSandbox | undefined;
}

/** What the PreToolUse hooks of a call decided, combined. */
export interface PreToolUseOutcome {
	/** Do not run the tool. */
	block?: boolean;
	/** Why, for the model. */
	reason?: string;
	/** Stop the agent loop (a hook said `continue: false`). */
	terminate?: boolean;
	/** Replacement arguments (already validated against the tool's schema). */
	args?: Record<string, unknown>;
	/** The strongest permission decision a hook gave, if any: deny beats ask beats allow. */
	permissionDecision?: HookPermissionDecision;
	/** The reason given with it. */
	permissionDecisionReason?: string;
	/** Text to append to the tool's result for the model. */
	additionalContext: string[];
	/** True once a hook command ran (it may have changed files: see `BeforeToolCallResult.sideEffects`). */
	ran?: boolean;
}

/** What the PostToolUse hooks of a call added. */
export interface PostToolUseOutcome {
	/** Text to append to the result for the model (context and feedback). */
	additionalContext: string[];
	/** Stop the agent loop after this batch. */
	terminate?: boolean;
	/** True once a hook command ran (see `PreToolUseOutcome.ran`). */
	ran?: boolean;
}

/** Tools whose `path` Claude Code's hook scripts know as `tool_input.file_path`. */
function filePathOf(target: ToolTarget | undefined, args: Record<string, unknown>): string | undefined {
	if ((target?.access !== "read" && target?.access !== "write") || !isWorkspaceTarget(target)) return undefined;
	if (typeof args.path !== "string") return undefined;
	// An earlier hook may have rewritten the path: the target then speaks of the old one.
	if (args.path === target.path && target.resolved) return target.resolved.absolutePath;
	return target.workspace.lexicalPath(args.path);
}

function matcherRegex(matcher: string | undefined): RegExp {
	if (matcher === undefined || matcher === "" || matcher === "*") return /^/;
	// Anchored, so `edit` does not match `notebook_edit`; case-insensitive, so `Write|Edit` from
	// a Claude Code settings file matches toolbelt's `write` and `edit`.
	return new RegExp(`^(?:${matcher})$`, "i");
}

/** Most a single hook text (a block reason, feedback, added context) may put in front of the model. */
const hookTextMaxBytes = 16 * 1024;
const hookTextMaxLines = 400;

/** A hook's text bounded for the model: a linter that prints a megabyte must not flood the context. */
function forModel(text: string): string {
	const kept = truncateTail(text, { maxBytes: hookTextMaxBytes, maxLines: hookTextMaxLines });
	if (!kept.truncated) return text;
	return `${kept.content}\n[Hook output truncated: showing ${kept.outputLines} of ${kept.originalLines} lines (${formatSize(kept.outputBytes)} of ${formatSize(kept.originalBytes)}).]`;
}

function textOf(content: readonly ToolResultContent[]): ToolResultContent[] {
	// Images are large and useless to a script; a marker keeps the position.
	return content.map((block) => (block.type === "image" ? { type: "text", text: `[image ${block.mimeType}]` } : block));
}

/** One settings entry, its matcher compiled. */
interface CompiledMatcher {
	regex: RegExp;
	hooks: readonly HookCommandSettings[];
}

/** What every hook run of one `createCommandHooks` instance shares; fixed when it is created. */
interface CommandHooksState extends HookRunSettings {
	sessionId: string;
	permissionMode: string;
	pre: readonly CompiledMatcher[];
	post: readonly CompiledMatcher[];
}

function createState(options: CommandHooksOptions): CommandHooksState {
	const projectDir = options.projectDir ?? options.cwd;
	const compile = (entries: readonly HookMatcherSettings[] = []) =>
		entries.map((entry) => ({ regex: matcherRegex(entry.matcher), hooks: entry.hooks }));
	let sessionId = options.sessionId;
	return {
		cwd: options.cwd,
		processCwd: options.processCwd,
		sandbox: options.sandbox,
		// Made on first use: a start whose hooks never run (a read, an MCP `initialize`) need not load crypto.
		get sessionId() {
			sessionId ??= randomUUID();
			return sessionId;
		},
		permissionMode: options.permissionMode ?? "default",
		defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 60,
		environment: { ...process.env, TOOLBELT_PROJECT_DIR: projectDir, CLAUDE_PROJECT_DIR: projectDir, ...options.env },
		pre: compile(options.preToolUse),
		post: compile(options.postToolUse),
		onHookError: options.onHookError,
	};
}

function matchingHooks(list: readonly CompiledMatcher[], toolName: string): HookCommandSettings[] {
	return list.filter((entry) => entry.regex.test(toolName)).flatMap((entry) => entry.hooks);
}

/** The arguments as hook scripts know them: Claude Code's `file_path` beside the tool's `path`. */
function toolInputOf(target: ToolTarget | undefined, args: Record<string, unknown>): Record<string, unknown> {
	const filePath = filePathOf(target, args);
	return filePath === undefined ? args : { ...args, file_path: filePath };
}

/** Turns a hook's `updatedInput` back into the tool's own argument names. */
function fromToolInput(sent: Record<string, unknown>, updated: Record<string, unknown>) {
	const { file_path: filePath, ...rest } = updated;
	if ("file_path" in sent && typeof filePath === "string" && filePath !== sent.file_path) rest.path = filePath;
	return rest;
}

const brokenHookAdvice =
	"This is a fault in the user's hook configuration, not a decision about your call; tell the user so they can fix the hook.";

/** The PreToolUse chain of one call: its context, what the hooks decided so far, what the last hook was sent. */
interface PreToolUseCall {
	context: BeforeToolCallContext;
	outcome: PreToolUseOutcome;
	/** The `tool_input` the running hook received (its `updatedInput` is mapped back against it). */
	sent: Record<string, unknown>;
}

/**
 * Turns one PreToolUse hook's run into the call's fate: a returned outcome ends the chain (the call
 * is blocked); undefined lets the next hook run, with `outcome` updated (decision, context, args).
 */
function judgePreToolUse(state: CommandHooksState, call: PreToolUseCall, ran: HookRun): PreToolUseOutcome | undefined {
	const { outcome } = call;
	const { hook } = ran;
	if (ran.kind === "failed") {
		if (ran.onError === "continue") return undefined;
		return {
			...outcome,
			block: true,
			reason: `The call was not run because a PreToolUse hook is broken: ${ran.failure}. ${brokenHookAdvice}`,
		};
	}
	if (ran.kind === "exit2") {
		const reason = forModel(ran.stderr) || `Blocked by the PreToolUse hook "${hook.command}".`;
		return { ...outcome, block: true, reason, permissionDecision: "deny" };
	}
	const checked = checkedAnswer(state, ran, readPreToolUseAnswer);
	if (!checked.ok) {
		return {
			...outcome,
			block: true,
			reason:
				`The call was not run: the ${checked.failure}. An answer a hook gives that toolbelt cannot act on blocks the call, ` +
				`it never counts as permission. ${brokenHookAdvice}`,
		};
	}
	const answer = checked.answer;
	if (answer.additionalContext !== undefined) outcome.additionalContext.push(forModel(answer.additionalContext));
	// Claude Code: `continue: false` takes precedence over any decision.
	if (answer.stop) {
		const reason = answer.stop.reason ?? `The PreToolUse hook "${hook.command}" stopped the run.`;
		return { ...outcome, block: true, terminate: true, reason: forModel(reason) };
	}
	const reason = answer.reason === undefined ? undefined : forModel(answer.reason);
	if (answer.decision === "deny") {
		return {
			...outcome,
			block: true,
			reason: reason ?? `Denied by the PreToolUse hook "${hook.command}".`,
			permissionDecision: "deny",
		};
	}
	if (
		answer.decision !== undefined &&
		stricterDecision(outcome.permissionDecision, answer.decision) !== outcome.permissionDecision
	) {
		outcome.permissionDecision = answer.decision;
		outcome.permissionDecisionReason = reason;
	}
	if (answer.updatedInput !== undefined) {
		try {
			const updated = fromToolInput(call.sent, answer.updatedInput);
			outcome.args = validateToolArguments(call.context.tool, updated);
		} catch (error) {
			return {
				...outcome,
				block: true,
				reason: `The PreToolUse hook "${hook.command}" rewrote the arguments into something the tool cannot take, so the call was not run. ${(error as Error).message}`,
			};
		}
	}
	return undefined;
}

/** What a hook reads on stdin: the fields Claude Code sends, in its order (`tool_response` after the call). */
function hookPayload(
	state: CommandHooksState,
	event: "PreToolUse" | "PostToolUse",
	context: BeforeToolCallContext,
	toolInput: Record<string, unknown>,
	toolResponse?: Record<string, unknown>,
): Record<string, unknown> {
	return {
		session_id: state.sessionId,
		cwd: state.cwd,
		hook_event_name: event,
		permission_mode: state.permissionMode,
		tool_name: context.tool.name,
		tool_input: toolInput,
		...(toolResponse ? { tool_response: toolResponse } : {}),
		tool_use_id: context.toolCall.id,
	};
}

/** Runs the PreToolUse hooks matching the call, in order; each sees the arguments the previous ones left. */
async function runPreToolUse(
	state: CommandHooksState,
	context: BeforeToolCallContext,
	signal?: AbortSignal,
): Promise<PreToolUseOutcome> {
	const outcome: PreToolUseOutcome = { additionalContext: [] };
	for (const hook of matchingHooks(state.pre, context.tool.name)) {
		const sent = toolInputOf(context.target, outcome.args ?? context.args);
		const payload = hookPayload(state, "PreToolUse", context, sent);
		const ran = await runHook(state, { event: "PreToolUse", hook, payload, signal });
		outcome.ran = true;
		const ended = judgePreToolUse(state, { context, outcome, sent }, ran);
		if (ended) return ended;
	}
	return outcome;
}

/** Adds what one PostToolUse hook's run has to say to `outcome` (the tool has run: nothing blocks). */
function judgePostToolUse(state: CommandHooksState, ran: HookRun, outcome: PostToolUseOutcome): void {
	const { hook } = ran;
	const feedback = (text: string) =>
		outcome.additionalContext.push(`Feedback from the PostToolUse hook "${hook.command}" (the tool did run): ${text}`);
	if (ran.kind === "failed") {
		if (ran.onError === "block") outcome.additionalContext.push(`Note: the tool ran, but ${ran.failure}.`);
		return;
	}
	if (ran.kind === "exit2") {
		if (ran.stderr !== "") feedback(forModel(ran.stderr));
		return;
	}
	const checked = checkedAnswer(state, ran, readPostToolUseAnswer);
	if (!checked.ok) {
		outcome.additionalContext.push(
			`Note: the tool ran, but the ${checked.failure}; tell the user so they can fix the hook.`,
		);
		return;
	}
	const answer = checked.answer;
	if (answer.feedback)
		feedback(answer.feedback.reason === undefined ? "(no reason given)" : forModel(answer.feedback.reason));
	if (answer.additionalContext !== undefined) outcome.additionalContext.push(forModel(answer.additionalContext));
	if (answer.stop) outcome.terminate = true;
}

/** Runs the PostToolUse hooks matching the call, in order, collecting what they add for the model. */
async function runPostToolUse(
	state: CommandHooksState,
	context: AfterToolCallContext,
	signal?: AbortSignal,
): Promise<PostToolUseOutcome> {
	const outcome: PostToolUseOutcome = { additionalContext: [] };
	for (const hook of matchingHooks(state.post, context.tool.name)) {
		const payload = hookPayload(state, "PostToolUse", context, toolInputOf(context.target, context.args), {
			content: textOf(context.result.content),
			details: context.result.details,
			is_error: context.isError,
		});
		judgePostToolUse(state, await runHook(state, { event: "PostToolUse", hook, payload, signal }), outcome);
		outcome.ran = true;
	}
	return outcome;
}

/** The command hooks as engine hooks; PreToolUse context waits, per call, for the result it is appended to. */
function commandToolHooks(state: CommandHooksState): ToolHooks {
	const pendingContext = new Map<string, string[]>();
	return {
		beforeToolCall: async (context, signal) => {
			const outcome = await runPreToolUse(state, context, signal);
			if (outcome.block)
				return withSideEffects({ block: true, reason: outcome.reason, terminate: outcome.terminate }, outcome);
			if (outcome.additionalContext.length > 0) pendingContext.set(context.toolCall.id, outcome.additionalContext);
			return withSideEffects(outcome.args ? { args: outcome.args } : undefined, outcome);
		},
		afterToolCall: async (context, signal) => {
			const before = pendingContext.get(context.toolCall.id) ?? [];
			pendingContext.delete(context.toolCall.id);
			const after = await runPostToolUse(state, context, signal);
			return withSideEffects(
				appendContext(context.result, [...before, ...after.additionalContext], after.terminate),
				after,
			);
		},
	};
}

/**
 * Runs user-configured command hooks around tool calls, speaking the contract of Claude Code
 * hook scripts: JSON on stdin; exit 2 blocks with stderr as the reason; exit 0 may print JSON
 * with `hookSpecificOutput.permissionDecision` / `updatedInput` / `additionalContext`, or
 * `decision: "block"` with `reason`, or `continue: false`. A hook that crashes, times out or
 * cannot be found follows its `onError` (default `block`), and is reported as a broken hook,
 * never as a decision about the call. Hooks fail closed: an answer that cannot be acted on exactly
 * as written (a `permissionDecision` other than allow/deny/ask, a field of the wrong type, a
 * decision for another event, invalid JSON) blocks a PreToolUse call whatever its `onError`,
 * naming the hook.
 */
export function createCommandHooks(options: CommandHooksOptions) {
	const state = createState(options);
	return {
		/** Runs the matching PreToolUse hooks of a call and combines what they decided. */
		runPreToolUse: (context: BeforeToolCallContext, signal?: AbortSignal) => runPreToolUse(state, context, signal),
		/** Runs the matching PostToolUse hooks of a call and collects what they add. */
		runPostToolUse: (context: AfterToolCallContext, signal?: AbortSignal) => runPostToolUse(state, context, signal),
		/** The hooks alone, for use without the rest of the safety layer. */
		hooks: (): ToolHooks => commandToolHooks(state),
		/** Sent to hooks as `session_id`. */
		get sessionId() {
			return state.sessionId;
		},
	};
}
