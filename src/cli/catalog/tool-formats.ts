import { toAnthropicTools, toJsonSchemaTools, toOpenAITools } from "../../agent/index.js";
import type { ToolDefinition } from "../../engine/index.js";

/** The shapes `toolbelt tools --format` can print. */
export const toolFormats = ["json-schema", "openai", "anthropic"] as const;

/** One of `toolFormats`. */
export type ToolFormat = (typeof toolFormats)[number];

/** True when `value` names a known format. */
export function isToolFormat(value: string): value is ToolFormat {
	return (toolFormats as readonly string[]).includes(value);
}

/**
 * The tool definitions in the shape an API expects, with the same converters the providers use:
 * what `tools --format openai` prints is exactly what the agent sends.
 */
export function formatToolDefinitions(definitions: readonly ToolDefinition[], format: ToolFormat): unknown[] {
	if (format === "openai") return toOpenAITools(definitions);
	if (format === "anthropic") return toAnthropicTools(definitions);
	return toJsonSchemaTools(definitions);
}
