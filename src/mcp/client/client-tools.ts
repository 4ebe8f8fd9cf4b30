import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { TSchema } from "typebox";
import type { AgentTool, ToolAccess, ToolResult, ToolResultContent } from "../../engine/index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, ToolError, truncateTail } from "../../engine/index.js";
import { fitImage, type ImageLimits } from "../../tools/index.js";
import type { McpConnection } from "./connection.js";
import { mcpToolName, normalizeToolSchema, type SchemaDialect } from "./normalize.js";

/** What an MCP tool's result carries besides its content. */
export interface McpToolDetails {
	/** The server's name in the config. */
	server: string;
	/** The tool's name on that server. */
	tool: string;
	/** The server's `structuredContent`, when it sent one. */
	structuredContent?: Record<string, unknown>;
	/** Set when the text was cut to fit the budget. */
	truncation?: { originalBytes: number; originalLines: number };
}

/** Options of `createMcpAgentTool`. */
export interface McpAgentToolOptions {
	/** The connection to the server that owns the tool. */
	connection: McpConnection;
	/** The tool as the server listed it. */
	tool: Tool;
	/** Schema dialect of the model API the agent talks to. Default: `openai`. */
	dialect?: SchemaDialect;
	/** Per-call timeout (reset by progress), in ms. Default: 120,000. */
	callTimeoutMs?: number;
	/** Most time a call may take in all, progress or not, in ms. Default: 30 minutes. */
	callMaxTotalMs?: number;
	/** Most UTF-8 bytes of text the model gets. Default: `DEFAULT_MAX_BYTES` (50 KB). */
	maxBytes?: number;
	/** Most lines of text the model gets. Default: `DEFAULT_MAX_LINES` (2,000). */
	maxLines?: number;
	/**
	 * The user vouches for the server (`"trusted": true` in their own config): its annotations
	 * (`readOnlyHint`, `destructiveHint`, `openWorldHint`, `idempotentHint`) are passed on and decide
	 * the tool's access. Otherwise they are dropped (a server can claim anything) and every call
	 * is "execute" for the safety layer. Default: false.
	 */
	trusted?: boolean;
}

type McpContent = CallToolResult["content"][number];

/** The limits read applies to images: what a model API accepts. */
const IMAGE_LIMITS: ImageLimits = { maxWidth: 2000, maxHeight: 2000, maxBase64Bytes: 4.5 * 2 ** 20 };

/**
 * Fits every image to the limits read uses (scaled down, re-encoded); one that cannot be made
 * to fit or decoded becomes a short text notice instead of an oversized block the provider refuses.
 */
async function fitImages(content: readonly ToolResultContent[]): Promise<ToolResultContent[]> {
	return Promise.all(
		content.map(async (block): Promise<ToolResultContent> => {
			if (block.type !== "image") return block;
			const fitted = await fitImage(Buffer.from(block.data, "base64"), block.mimeType, IMAGE_LIMITS);
			if (fitted.data !== undefined) return { type: "image", data: fitted.data, mimeType: fitted.mimeType };
			return {
				type: "text",
				text: `[image ${block.mimeType}, ${describeBytes(block.data)} — not shown: ${fitted.note ?? "it does not fit the image limits"}]`,
			};
		}),
	);
}

function describeBytes(base64: string): string {
	return formatSize(Math.floor((base64.length * 3) / 4));
}

/** One MCP content block as the model can read it: text and images pass, the rest is described. */
function convertBlock(block: McpContent): ToolResultContent {
	switch (block.type) {
		case "text":
			return { type: "text", text: block.text };
		case "image":
			return { type: "image", data: block.data, mimeType: block.mimeType };
		case "audio":
			return { type: "text", text: `[audio ${block.mimeType}, ${describeBytes(block.data)} — not shown]` };
		case "resource_link":
			return {
				type: "text",
				text: `[resource link: ${block.name} ${block.uri}${block.description ? ` — ${block.description}` : ""}]`,
			};
		case "resource": {
			const { resource } = block;
			if ("text" in resource && typeof resource.text === "string") {
				return { type: "text", text: `[resource ${resource.uri}]\n${resource.text}` };
			}
			if ("blob" in resource && typeof resource.blob === "string" && resource.mimeType?.startsWith("image/")) {
				return { type: "image", data: resource.blob, mimeType: resource.mimeType };
			}
			const size = "blob" in resource && typeof resource.blob === "string" ? `, ${describeBytes(resource.blob)}` : "";
			return { type: "text", text: `[resource ${resource.uri} (${resource.mimeType ?? "binary"}${size}) — not shown]` };
		}
		default:
			return { type: "text", text: `[unsupported content type ${(block as { type: string }).type}]` };
	}
}

/**
 * Converts an MCP `tools/call` result into a toolbelt result: text blocks joined and cut to the
 * budget (keeping the head, like the file tools), images kept, other blocks described.
 */
export function convertCallToolResult(
	result: CallToolResult,
	details: McpToolDetails,
	budget: { maxBytes: number; maxLines: number },
): ToolResult<McpToolDetails> {
	const blocks = (result.content ?? []).map(convertBlock);
	const texts = blocks.filter((block) => block.type === "text").map((block) => block.text);
	const images = blocks.filter((block) => block.type === "image");
	let text = texts.join("\n");
	if (text === "" && result.structuredContent) text = JSON.stringify(result.structuredContent, null, 2);
	if (result.structuredContent) details.structuredContent = result.structuredContent;
	const truncation = truncateTail(text, budget);
	if (truncation.truncated) {
		details.truncation = { originalBytes: truncation.originalBytes, originalLines: truncation.originalLines };
		text =
			`${truncation.content}\n\n[Result truncated: showing ${truncation.outputLines} of ${truncation.originalLines} lines ` +
			`(${formatSize(truncation.outputBytes)} of ${formatSize(truncation.originalBytes)}). ` +
			"Ask the tool for less (a narrower query, a page or a range) to see the rest.]";
	}
	const content: ToolResultContent[] = [];
	if (text !== "" || images.length === 0) content.push({ type: "text", text: text || "(no output)" });
	content.push(...images);
	return { content, details };
}

/**
 * What an MCP tool's calls may do, from the server's annotations, since its name says nothing
 * (a server's `write` is not the built-in one): `readOnlyHint` → `read`; a tool that declares it
 * neither destroys data nor reaches an open world → `write` (it changes only its own state);
 * anything else, and any tool without annotations → `execute`.
 */
export function mcpToolAccess(annotations: {
	readOnlyHint?: boolean;
	destructiveHint?: boolean;
	openWorldHint?: boolean;
}): ToolAccess {
	if (annotations.readOnlyHint === true) return "read";
	if (annotations.destructiveHint === false && annotations.openWorldHint === false) return "write";
	return "execute";
}

/**
 * Wraps one MCP server tool as an AgentTool named `<server>__<tool>`: the engine validates and
 * coerces arguments against its (normalised) JSON Schema; a trusted server's `readOnlyHint` makes
 * it parallel and a read (see `trusted`), anything else is sequential and "execute", and a server-side error, timeout or crash becomes a thrown error the
 * engine turns into an error result.
 */
export function createMcpAgentTool(options: McpAgentToolOptions): AgentTool<TSchema, McpToolDetails> {
	const { connection, tool } = options;
	const budget = { maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxLines: options.maxLines ?? DEFAULT_MAX_LINES };
	// An untrusted server's hints are its own claims: nothing downstream may read them.
	const annotations = options.trusted === true ? (tool.annotations ?? {}) : { title: tool.annotations?.title };
	const title = annotations.title ?? tool.title;
	return {
		name: mcpToolName(connection.name, tool.name),
		description: tool.description?.trim() || `Tool "${tool.name}" of the MCP server "${connection.name}".`,
		parameters: normalizeToolSchema(tool.inputSchema, options.dialect) as unknown as TSchema,
		annotations: {
			...(title ? { title } : {}),
			...(annotations.readOnlyHint !== undefined ? { readOnlyHint: annotations.readOnlyHint } : {}),
			...(annotations.destructiveHint !== undefined ? { destructiveHint: annotations.destructiveHint } : {}),
			...(annotations.idempotentHint !== undefined ? { idempotentHint: annotations.idempotentHint } : {}),
			...(annotations.openWorldHint !== undefined ? { openWorldHint: annotations.openWorldHint } : {}),
		},
		executionMode: annotations.readOnlyHint === true ? "parallel" : "sequential",
		target: () => ({ access: mcpToolAccess(annotations) }),
		async execute(_toolCallId, args, signal, onUpdate) {
			let progressText = "";
			const result = await connection.callTool(tool.name, args as Record<string, unknown>, {
				signal,
				timeoutMs: options.callTimeoutMs,
				maxTotalMs: options.callMaxTotalMs,
				onProgress: onUpdate
					? (progress) => {
							const total = progress.total !== undefined ? `/${progress.total}` : "";
							progressText = progress.message ?? `progress ${progress.progress}${total}`;
							onUpdate({
								content: [{ type: "text", text: progressText }],
								details: { server: connection.name, tool: tool.name },
							});
						}
					: undefined,
			});
			const converted = convertCallToolResult(result, { server: connection.name, tool: tool.name }, budget);
			if (result.isError) {
				const message = converted.content
					.filter((block) => block.type === "text")
					.map((block) => block.text)
					.join("\n");
				throw new ToolError(
					message || `MCP tool "${tool.name}" reported an error without a message.`,
					converted.details,
				);
			}
			return { ...converted, content: await fitImages(converted.content) };
		},
	};
}
