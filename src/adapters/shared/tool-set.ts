import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { AnyAgentTool, ToolHooks, ToolResult, ToolResultMessage } from "../../engine/index.js";
import { type CallGate, composeHooks, createCallGate, executeToolCalls, isAbortError } from "../../engine/index.js";
import type { SafetyLayer } from "../../safety/index.js";
import type { ToolName, ToolsOptions } from "../../tools/index.js";
import { createSelectedTools, type ToolSelection } from "../../tools/index.js";

/** The tools an adapter serves by default: every built-in tool except `powershell`. */
export const defaultAdapterToolNames: readonly ToolName[] = ["read", "write", "edit", "bash", "grep", "find", "ls"];

/** Options every framework adapter takes; `tools` defaults to read, write, edit, bash, grep, find, ls. */
export interface AdapterOptions extends ToolSelection {
	/**
	 * A safety layer from `createSafetyLayer` (same `cwd`): its hooks run on every call and, with its
	 * sandbox on, bash and powershell run inside it. Default: none (no permission checks).
	 */
	safety?: SafetyLayer;
	/** More hooks, run after the safety layer's. Default: none. */
	hooks?: ToolHooks;
	/**
	 * Schedules the calls. Share one gate between tool sets that work on the same files so barriers
	 * and same-file ordering hold across them. Default: a gate of this tool set.
	 */
	gate?: CallGate;
	/** Least time between two progress updates of one call, in ms. Default: 100. */
	updateIntervalMs?: number;
}

/** How one framework call reaches the engine. */
export interface AdapterCall {
	/** The framework's id for the call (echoed in the result). */
	toolCallId: string;
	/** The framework's abort signal for the call or the run. Default: none. */
	signal?: AbortSignal;
	/** Receives partial results while the tool runs (e.g. the growing tail of a shell's output). */
	onUpdate?: (partial: ToolResult) => void;
}

/** The tools of one adapter and the one gate all their calls pass through. */
export interface ToolbeltToolSet {
	/** The engine tools, in the order they are offered to the model. */
	readonly tools: readonly AnyAgentTool[];
	/** The gate shared by every call of this set. */
	readonly gate: CallGate;
	/** Runs one call through the engine (repair, validation, hooks, mutation queue, truncation) in its gate turn. */
	run(name: string, args: unknown, call: AdapterCall): Promise<ToolResultMessage>;
}

function withSafetyShell(options: ToolsOptions | undefined, safety: SafetyLayer | undefined): ToolsOptions {
	if (!safety?.sandbox) return options ?? {};
	// The sandbox's operations win: a caller's own bash options must not take the sandbox away.
	return {
		...options,
		bash: { ...options?.bash, ...safety.shell },
		powershell: { ...options?.powershell, ...safety.shell },
	};
}

function cancelledResult(call: AdapterCall, name: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: call.toolCallId,
		toolName: name,
		content: [{ type: "text", text: `Tool "${name}" was not run: the run was aborted before this call started.` }],
		isError: true,
		timestamp: Date.now(),
	};
}

/**
 * Builds the engine side of an adapter: the tools, the hooks (safety first), and one call gate.
 * Frameworks call tools one by one and often concurrently; the gate admits them in call order,
 * so writes, edits and shells stay barriers and same-file mutations stay serialised.
 */
export function createToolbeltToolSet(cwd: string, options: AdapterOptions = {}): ToolbeltToolSet {
	const root = resolve(cwd);
	const toolsOptions = withSafetyShell(options.toolsOptions, options.safety);
	const tools = createSelectedTools(root, options, defaultAdapterToolNames, toolsOptions);
	// The framework's first call comes a model's reply later: what judging it needs loads meanwhile.
	options.safety?.prepareFor(tools.map((tool) => tool.name));
	const byName = new Map(tools.map((tool) => [tool.name, tool]));
	if (byName.size !== tools.length) throw new Error("toolbelt adapter: tool names must be unique.");
	const hooks = composeHooks([options.safety?.hooks, options.hooks]);
	const gate = options.gate ?? createCallGate();

	const run = async (name: string, args: unknown, call: AdapterCall): Promise<ToolResultMessage> => {
		const tool = byName.get(name);
		// Passed on as received: the engine repairs what it can and reports the rest to the model.
		const argumentsObject = (args ?? {}) as Record<string, unknown>;
		try {
			const { messages } = await gate.run(
				() =>
					executeToolCalls({
						tools,
						toolCalls: [{ type: "toolCall", id: call.toolCallId, name, arguments: argumentsObject }],
						signal: call.signal,
						updateIntervalMs: options.updateIntervalMs ?? 100,
						onEvent: (event) => {
							if (event.type === "tool_execution_update") call.onUpdate?.(event.partialResult);
						},
						...hooks,
					}),
				{ mode: tool?.executionMode, signal: call.signal },
			);
			const message = messages[0];
			if (!message) throw new Error(`Tool "${name}" produced no result.`);
			return message;
		} catch (error) {
			if (isAbortError(error)) return cancelledResult(call, name);
			throw error;
		}
	};
	return { tools, gate, run };
}

/** The text blocks of a result joined, for frameworks whose errors are one string. */
export function resultText(message: Pick<ToolResultMessage, "content">): string {
	return message.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
}

/** A plain JSON Schema copy of a tool's parameters (TypeBox's symbols dropped), typed as an object schema. */
export function plainParameters(tool: AnyAgentTool): Record<string, unknown> & { type: "object" } {
	const schema = JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>;
	return { ...schema, type: "object" };
}

/** An id for a call the framework gave none (e.g. a tool invoked directly rather than by a model). */
export function fallbackCallId(toolName: string): string {
	return `${toolName}-${randomUUID()}`;
}
