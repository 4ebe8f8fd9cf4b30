import type { FunctionTool } from "@openai/agents";
import type { AnyAgentTool, ToolResultMessage } from "../../engine/index.js";
import { validateToolArguments } from "../../engine/index.js";
import type { SafetyLayer } from "../../safety/index.js";
import { fallbackCallId, plainParameters, resultText, type ToolbeltToolSet } from "../shared/tool-set.js";
import type { AgentsApprovalBridge } from "./approval-bridge.js";

/** The parts of `@openai/agents` the adapter uses. */
export interface AgentsModule {
	tool: typeof import("@openai/agents").tool;
}

/** A tool's output as the Agents SDK takes it: text alone as a string, otherwise text and image items. */
export type AgentsToolOutput =
	| string
	| ({ type: "text"; text: string } | { type: "image"; image: { data: string; mediaType: string } })[];

/** Converts an engine result into Agents SDK output; images become image items (base64 with their media type). */
export function toAgentsOutput(message: Pick<ToolResultMessage, "content">): AgentsToolOutput {
	if (message.content.every((block) => block.type === "text")) return resultText(message);
	return message.content.map((block) =>
		block.type === "text"
			? { type: "text" as const, text: block.text }
			: { type: "image" as const, image: { data: block.data, mediaType: block.mimeType } },
	);
}

/** Runs the safety layer's `beforeToolCall` on repaired, validated arguments, as the engine would. */
async function probeSafety(safety: SafetyLayer, tool: AnyAgentTool, callId: string, input: unknown): Promise<void> {
	const before = safety.hooks.beforeToolCall;
	if (!before) return;
	let args: Record<string, unknown>;
	try {
		args = validateToolArguments(tool, tool.prepareArguments ? tool.prepareArguments(input) : input);
	} catch {
		return; // The call will fail validation when it runs; nothing to approve.
	}
	await before({ toolCall: { type: "toolCall", id: callId, name: tool.name, arguments: args }, tool, args }, undefined);
}

/** What the conversion needs besides the tool set. */
export interface AgentsConversionOptions {
	safety?: SafetyLayer;
	approvals?: AgentsApprovalBridge;
}

/**
 * Turns a tool set into Agents SDK function tools: non-strict JSON Schema parameters (toolbelt's
 * schemas have optional fields, which strict mode forbids), `execute` through the engine with the
 * run's abort signal, a failed call thrown so the SDK reports it to the model as a tool error, and
 * with an approval bridge, `needsApproval` answered by the safety layer's ask decision.
 */
export function toAgentsTools(
	agents: AgentsModule,
	set: ToolbeltToolSet,
	options: AgentsConversionOptions = {},
): FunctionTool<unknown, never, AgentsToolOutput>[] {
	const { safety, approvals } = options;
	return set.tools.map((engineTool) => {
		const needsApproval =
			safety && approvals
				? async (_context: unknown, input: unknown, callId?: string) =>
						approvals.probe(callId ?? "", () => probeSafety(safety, engineTool, callId ?? "", input))
				: false;
		return agents.tool({
			name: engineTool.name,
			description: engineTool.description,
			parameters: plainParameters(engineTool) as never,
			strict: false,
			needsApproval,
			// The SDK's default hides the message; toolbelt's errors are written for the model, so it reads them.
			errorFunction: (_context, error) => (error instanceof Error ? error.message : String(error)),
			execute: async (input: unknown, _context, details): Promise<AgentsToolOutput> => {
				const toolCallId = details?.toolCall?.callId ?? fallbackCallId(engineTool.name);
				if (needsApproval !== false) approvals?.approve(toolCallId);
				try {
					const message = await set.run(engineTool.name, input, { toolCallId, signal: details?.signal });
					if (message.isError) throw new Error(resultText(message));
					return toAgentsOutput(message);
				} finally {
					approvals?.settle(toolCallId);
				}
			},
		}) as unknown as FunctionTool<unknown, never, AgentsToolOutput>;
	});
}
