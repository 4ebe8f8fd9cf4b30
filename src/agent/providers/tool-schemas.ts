import type { ToolDefinition } from "../../engine/index.js";

/** A tool as OpenAI's Chat Completions API (and compatible servers) expects it. */
export interface OpenAIToolSchema {
	type: "function";
	function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool as Anthropic's Messages API expects it. */
export interface AnthropicToolSchema {
	name: string;
	description: string;
	input_schema: { type: "object"; [key: string]: unknown };
}

/** The schema as plain JSON: TypeBox adds symbol-keyed metadata that does not belong on the wire. */
function plainSchema(parameters: unknown): Record<string, unknown> {
	const plain = JSON.parse(JSON.stringify(parameters ?? {})) as Record<string, unknown>;
	// Both APIs require an object schema at the top level.
	if (plain.type === undefined) plain.type = "object";
	if (plain.type === "object" && plain.properties === undefined) plain.properties = {};
	return plain;
}

/** Converts tool definitions to OpenAI Chat Completions `tools` entries. */
export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAIToolSchema[] {
	return tools.map((tool) => ({
		type: "function",
		function: { name: tool.name, description: tool.description, parameters: plainSchema(tool.parameters) },
	}));
}

/** Converts tool definitions to Anthropic Messages `tools` entries. */
export function toAnthropicTools(tools: readonly ToolDefinition[]): AnthropicToolSchema[] {
	return tools.map((tool) => ({
		name: tool.name,
		description: tool.description,
		input_schema: { ...plainSchema(tool.parameters), type: "object" },
	}));
}

/** Converts tool definitions to plain JSON Schema entries (`name`, `description`, `inputSchema`, `annotations`). */
export function toJsonSchemaTools(tools: readonly ToolDefinition[]): {
	name: string;
	description: string;
	inputSchema: Record<string, unknown>;
	annotations?: ToolDefinition["annotations"];
}[] {
	return tools.map((tool) => ({
		name: tool.name,
		description: tool.description,
		inputSchema: plainSchema(tool.parameters),
		...(tool.annotations ? { annotations: tool.annotations } : {}),
	}));
}
