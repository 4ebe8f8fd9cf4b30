import { randomUUID } from "node:crypto";
import { formatSize, truncateTail } from "../engine/truncate.js";
import type {
	AfterToolCallContext,
	BeforeToolCallContext,
	ToolHooks,
	ToolResult,
	ToolResultContent,
} from "../engine/types.js";
import { validateToolArguments } from "../engine/validate.js";
import { toolTargetPath } from "../tools/fs/near-miss.js";
import { type HookProcessResult, runHookProcess } from "./hook-process.js";
import type { HookCommandSettings, HookMatcherSettings } from "./settings.js";

/** A decision a PreToolUse hook can return in `hookSpecificOutput.permissionDecision`. */
export type HookPermissionDecision = "allow" | "deny" | "ask";

/** Options of `createCommandHooks`. */
export interface CommandHooksOptions {
	/** The tools' working directory; hooks run here and receive it as `cwd`. */
	cwd: string;
	/** The project directory, given to hooks as `TOOLBELT_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`. Default: `cwd`. */
	projectDir?: string;
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
	/** Told about every hook that failed (crash, timeout, missing script, bad output), whatever its `onError`. */
	onHookError?: (error: HookFailure) => void;
}

/** A hook command that could not do its job. */
export interface HookFailure {
	/** `PreToolUse` or `PostToolUse`. */
	event: HookEvent;
	/** The command line of the hook. */
	command: string;
	/** What went wrong, in words. */
	message: string;
	/** The hook's `onError` policy. */
	onError: "block" | "continue";
}

/** The two events hooks can run on. */
export type HookEvent = "PreToolUse" | "PostToolUse";

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
}

/** What the PostToolUse hooks of a call added. */
export interface PostToolUseOutcome {
	/** Text to append to the result for the model (context and feedback). */
	additionalContext: string[];
	/** Stop the agent loop after this batch. */
	terminate?: boolean;
}

/** Tools whose `path` Claude Code's hook scripts know as `tool_input.file_path`. */
const filePathTools = new Set(["read", "write", "edit"]);

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
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

function describeFailure(result: HookProcessResult, timeoutSeconds: number): string | undefined {
	if (result.spawnError) return `could not be started (${result.spawnError})`;
	if (result.timedOut) return `timed out after ${timeoutSeconds} s and was killed`;
	if (result.aborted) return "was cancelled";
	if (result.signal) return `was killed by ${result.signal}`;
	const stderr = result.stderr.trim();
	const detail = stderr === "" ? "" : `: ${stderr.slice(0, 2000)}`;
	if (result.exitCode === 127) return `could not run its command: not found (exit code 127)${detail}`;
	if (result.exitCode === 126) return `could not run its command: not executable (exit code 126)${detail}`;
	if (result.exitCode !== 0 && result.exitCode !== 2) return `failed with exit code ${result.exitCode}${detail}`;
	return undefined;
}

/** The parsed JSON a hook printed on stdout (exit 0), or an error text. */
function parseOutput(stdout: string): { output?: Record<string, unknown>; error?: string } {
	const text = stdout.trim();
	if (!text.startsWith("{")) return {};
	try {
		const output: unknown = JSON.parse(text);
		return isRecord(output) ? { output } : { error: "printed JSON that is not an object" };
	} catch (error) {
		return { error: `printed invalid JSON on stdout (${(error as Error).message})` };
	}
}

/**
 * Runs user-configured command hooks around tool calls, speaking the contract of Claude Code
 * hook scripts: JSON on stdin; exit 2 blocks with stderr as the reason; exit 0 may print JSON
 * with `hookSpecificOutput.permissionDecision` / `updatedInput` / `additionalContext`, or
 * `decision: "block"` with `reason`, or `continue: false`. A hook that crashes, times out or
 * cannot be found follows its `onError` (default `block`), and is reported as a broken hook,
 * never as a decision about the call.
 */
export function createCommandHooks(options: CommandHooksOptions) {
	const sessionId = options.sessionId ?? randomUUID();
	const projectDir = options.projectDir ?? options.cwd;
	const defaultTimeoutSeconds = options.defaultTimeoutSeconds ?? 60;
	const environment: NodeJS.ProcessEnv = {
		...process.env,
		TOOLBELT_PROJECT_DIR: projectDir,
		CLAUDE_PROJECT_DIR: projectDir,
		...options.env,
	};
	const compile = (entries: readonly HookMatcherSettings[] = []) =>
		entries.map((entry) => ({ regex: matcherRegex(entry.matcher), hooks: entry.hooks }));
	const pre = compile(options.preToolUse);
	const post = compile(options.postToolUse);
	const matching = (list: typeof pre, toolName: string) =>
		list.filter((entry) => entry.regex.test(toolName)).flatMap((entry) => entry.hooks);

	const toolInput = async (toolName: string, args: Record<string, unknown>) => {
		if (!filePathTools.has(toolName) || typeof args.path !== "string") return args;
		return { ...args, file_path: await toolTargetPath(options.cwd, args.path) };
	};

	/** Turns a hook's `updatedInput` back into the tool's own argument names. */
	const fromToolInput = (toolName: string, sent: Record<string, unknown>, updated: Record<string, unknown>) => {
		const { file_path: filePath, ...rest } = updated;
		if (filePathTools.has(toolName) && typeof filePath === "string" && filePath !== sent.file_path)
			rest.path = filePath;
		return rest;
	};

	const run = async (
		event: HookEvent,
		hook: HookCommandSettings,
		payload: Record<string, unknown>,
		signal?: AbortSignal,
	) => {
		const timeoutSeconds = hook.timeout ?? defaultTimeoutSeconds;
		const result = await runHookProcess({
			command: hook.command,
			stdin: JSON.stringify(payload),
			cwd: options.cwd,
			env: environment,
			timeoutMs: timeoutSeconds * 1000,
			signal,
		});
		let failure = describeFailure(result, timeoutSeconds);
		const parsed = result.exitCode === 0 ? parseOutput(result.stdout) : {};
		if (!failure && parsed.error) failure = parsed.error;
		if (failure) {
			const onError = hook.onError ?? "block";
			options.onHookError?.({ event, command: hook.command, message: failure, onError });
			return { result, failure: `${event} hook "${hook.command}" ${failure}`, onError };
		}
		return { result, output: parsed.output };
	};

	const runPreToolUse = async (context: BeforeToolCallContext, signal?: AbortSignal): Promise<PreToolUseOutcome> => {
		const outcome: PreToolUseOutcome = { additionalContext: [] };
		const hooks = matching(pre, context.tool.name);
		if (hooks.length === 0) return outcome;
		let args = context.args;
		const rank = { allow: 1, ask: 2, deny: 3 } as const;
		for (const hook of hooks) {
			const sent = await toolInput(context.tool.name, args);
			const payload = {
				session_id: sessionId,
				cwd: options.cwd,
				hook_event_name: "PreToolUse",
				permission_mode: options.permissionMode ?? "default",
				tool_name: context.tool.name,
				tool_input: sent,
				tool_use_id: context.toolCall.id,
			};
			const ran = await run("PreToolUse", hook, payload, signal);
			if (ran.failure !== undefined) {
				if (ran.onError === "continue") continue;
				return {
					...outcome,
					block: true,
					reason:
						`The call was not run because a PreToolUse hook is broken: ${ran.failure}. ` +
						"This is a fault in the user's hook configuration, not a decision about your call; tell the user so they can fix the hook.",
				};
			}
			if (ran.result.exitCode === 2) {
				const reason = forModel(ran.result.stderr.trim()) || `Blocked by the PreToolUse hook "${hook.command}".`;
				return { ...outcome, block: true, reason, permissionDecision: "deny" };
			}
			const output = ran.output ?? {};
			const specific = isRecord(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
			let decision = specific.permissionDecision as HookPermissionDecision | undefined;
			let decisionReason =
				typeof specific.permissionDecisionReason === "string" ? forModel(specific.permissionDecisionReason) : undefined;
			// The older top-level form: `decision: "approve" | "block"` with `reason`.
			if (decision === undefined && (output.decision === "approve" || output.decision === "block")) {
				decision = output.decision === "approve" ? "allow" : "deny";
				if (typeof output.reason === "string") decisionReason = forModel(output.reason);
			}
			if (typeof specific.additionalContext === "string")
				outcome.additionalContext.push(forModel(specific.additionalContext));
			if (output.continue === false) {
				const stop =
					typeof output.stopReason === "string"
						? forModel(output.stopReason)
						: `The PreToolUse hook "${hook.command}" stopped the run.`;
				return { ...outcome, block: true, terminate: true, reason: stop };
			}
			if (decision === "deny") {
				return {
					...outcome,
					block: true,
					reason: decisionReason ?? `Denied by the PreToolUse hook "${hook.command}".`,
					permissionDecision: "deny",
				};
			}
			if (decision === "allow" || decision === "ask") {
				if (!outcome.permissionDecision || rank[decision] > rank[outcome.permissionDecision]) {
					outcome.permissionDecision = decision;
					outcome.permissionDecisionReason = decisionReason;
				}
			}
			if (isRecord(specific.updatedInput)) {
				const updated = fromToolInput(context.tool.name, sent, specific.updatedInput);
				try {
					args = validateToolArguments(context.tool, updated);
				} catch (error) {
					return {
						...outcome,
						block: true,
						reason: `The PreToolUse hook "${hook.command}" rewrote the arguments into something the tool cannot take, so the call was not run. ${(error as Error).message}`,
					};
				}
				outcome.args = args;
			}
		}
		return outcome;
	};

	const runPostToolUse = async (context: AfterToolCallContext, signal?: AbortSignal): Promise<PostToolUseOutcome> => {
		const outcome: PostToolUseOutcome = { additionalContext: [] };
		for (const hook of matching(post, context.tool.name)) {
			const payload = {
				session_id: sessionId,
				cwd: options.cwd,
				hook_event_name: "PostToolUse",
				permission_mode: options.permissionMode ?? "default",
				tool_name: context.tool.name,
				tool_input: await toolInput(context.tool.name, context.args),
				tool_response: {
					content: textOf(context.result.content),
					details: context.result.details,
					is_error: context.isError,
				},
				tool_use_id: context.toolCall.id,
			};
			const ran = await run("PostToolUse", hook, payload, signal);
			if (ran.failure !== undefined) {
				if (ran.onError === "block") outcome.additionalContext.push(`Note: the tool ran, but ${ran.failure}.`);
				continue;
			}
			if (ran.result.exitCode === 2) {
				const feedback = forModel(ran.result.stderr.trim());
				if (feedback)
					outcome.additionalContext.push(
						`Feedback from the PostToolUse hook "${hook.command}" (the tool did run): ${feedback}`,
					);
				continue;
			}
			const output = ran.output ?? {};
			const specific = isRecord(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
			if (output.decision === "block" && typeof output.reason === "string") {
				outcome.additionalContext.push(
					`Feedback from the PostToolUse hook "${hook.command}" (the tool did run): ${forModel(output.reason)}`,
				);
			}
			if (typeof specific.additionalContext === "string")
				outcome.additionalContext.push(forModel(specific.additionalContext));
			if (output.continue === false) outcome.terminate = true;
		}
		return outcome;
	};

	/** The hooks alone, for use without the rest of the safety layer. */
	const hooks = (): ToolHooks => {
		const pending = new Map<string, string[]>();
		return {
			beforeToolCall: async (context, signal) => {
				const outcome = await runPreToolUse(context, signal);
				if (outcome.block) return { block: true, reason: outcome.reason, terminate: outcome.terminate };
				if (outcome.additionalContext.length > 0) pending.set(context.toolCall.id, outcome.additionalContext);
				return outcome.args ? { args: outcome.args } : undefined;
			},
			afterToolCall: async (context, signal) => {
				const before = pending.get(context.toolCall.id) ?? [];
				pending.delete(context.toolCall.id);
				const after = await runPostToolUse(context, signal);
				return appendContext(context.result, [...before, ...after.additionalContext], after.terminate);
			},
		};
	};

	return { runPreToolUse, runPostToolUse, hooks, sessionId };
}

/** The result patch that appends `texts` to a result's content (undefined when there is nothing to add). */
export function appendContext(result: ToolResult, texts: readonly string[], terminate?: boolean) {
	if (texts.length === 0 && !terminate) return undefined;
	const content =
		texts.length === 0 ? undefined : [...result.content, ...texts.map((text) => ({ type: "text" as const, text }))];
	return { ...(content ? { content } : {}), ...(terminate ? { terminate: true } : {}) };
}
