// How toolbelt's tools and results look over MCP: the listing of a tool, a call's result, a progress message.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyAgentTool, ToolExecutionEvent, ToolResultMessage } from "../engine/index.js";
import { utf8Suffix } from "../engine/index.js";

/** The `_meta` key under which a result's structured `details` travel to MCP clients. */
export const DETAILS_META_KEY = "toolbelt/details";

/** The MCP listing of a tool: a plain JSON Schema (TypeBox's symbols dropped) plus annotations. */
export function toMcpTool(tool: AnyAgentTool): Tool {
	const inputSchema = JSON.parse(JSON.stringify(tool.parameters)) as Tool["inputSchema"];
	inputSchema.type = "object";
	const annotations = tool.annotations ? { ...tool.annotations } : undefined;
	return {
		name: tool.name,
		...(annotations?.title ? { title: annotations.title } : {}),
		description: tool.description,
		inputSchema,
		...(annotations ? { annotations } : {}),
	};
}

/** Most characters of JSON `details` sent in `_meta`; a larger one is replaced by a note. */
const MAX_DETAILS_JSON_CHARACTERS = 2 * 2 ** 20;

/** `details` as plain JSON data, or a note when it is too large to send (it is never model input). */
function jsonSafe(value: unknown): unknown {
	try {
		if (value === undefined) return undefined;
		const json = JSON.stringify(value);
		if (json === undefined) return undefined;
		if (json.length > MAX_DETAILS_JSON_CHARACTERS) {
			return {
				omitted: `details were ${json.length} characters of JSON, over the ${MAX_DETAILS_JSON_CHARACTERS} sent`,
			};
		}
		return JSON.parse(json);
	} catch {
		return undefined;
	}
}

/** Converts an engine result message into an MCP `tools/call` result. */
export function toCallToolResult(message: ToolResultMessage, includeDetails = true): CallToolResult {
	const content: CallToolResult["content"] = message.content.map((block) =>
		block.type === "text"
			? { type: "text", text: block.text }
			: { type: "image", data: block.data, mimeType: block.mimeType },
	);
	if (content.length === 0) content.push({ type: "text", text: "" });
	const details = includeDetails ? jsonSafe(message.details) : undefined;
	return {
		content,
		...(message.isError ? { isError: true } : {}),
		...(details !== undefined ? { _meta: { [DETAILS_META_KEY]: details } } : {}),
	};
}

/** The output tail an update event carries, as a progress notification's message. */
export function progressMessage(event: ToolExecutionEvent, maxBytes: number): string | undefined {
	if (event.type !== "tool_execution_update") return undefined;
	const text = event.partialResult.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	return utf8Suffix(text, maxBytes);
}
