import type MiniSearch from "minisearch";
import { type AnyAgentTool, type ToolDefinition, Type } from "../../engine/index.js";

/** The name of the search tool. */
export const TOOL_SEARCH_NAME = "tool_search";

/** Default: tool search starts when the model would be offered more tools than this. */
export const DEFAULT_TOOL_SEARCH_THRESHOLD = 40;

const DESCRIPTION = `Search the tools that are not loaded yet (there are more than fit in a request) by what you want to do, e.g. "create a GitHub issue" or "convert currency". Returns the best matches with their name, description and argument schema; those tools can be called from your next reply on (and at once from a code program, as tools.<name>).`;

/** Options of `createToolSearch`. */
export interface ToolSearchOptions {
	/** Every tool the agent can run (the built-in ones and those of MCP servers). */
	tools: readonly AnyAgentTool[];
	/**
	 * Tools always sent to the model. Default: the tools whose names contain no `__` (the built-in
	 * ones and your own; an MCP server's tools are named `<server>__<tool>` and wait for a search).
	 */
	coreToolNames?: readonly string[];
	/** Tool search is on only when there are more tools than this. Default: 40. */
	threshold?: number;
	/** Matches returned per search. Default: 5. */
	maxResults?: number;
}

/** A tool set with tool search: the search tool, and which tools each model request carries. */
export interface ToolSearch {
	/** True when the tool set is larger than the threshold (otherwise every tool is sent and there is no search tool). */
	readonly active: boolean;
	/** Every tool to run calls with: the given ones, plus the search tool when active. */
	readonly tools: readonly AnyAgentTool[];
	/** The tools the next model request carries: the core set, the search tool and every tool found so far. */
	requestTools(): AnyAgentTool[];
	/** Names of the tools loaded by searches so far. */
	readonly loaded: ReadonlySet<string>;
}

/** The words of a tool's name: `github__create_issue` → `github create issue`. */
function nameWords(name: string): string {
	return name.replace(/[_\-.]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2");
}

function parameterWords(tool: ToolDefinition): string {
	const properties = (tool.parameters as { properties?: Record<string, { description?: unknown }> }).properties ?? {};
	return Object.entries(properties)
		.map(([key, value]) => `${nameWords(key)} ${typeof value?.description === "string" ? value.description : ""}`)
		.join(" ");
}

/** A plain JSON copy of a definition, as the model sees it. */
function definitionText(tool: AnyAgentTool): string {
	return JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters });
}

/** What the index holds of a tool: its place in the deferred list and its words. */
interface SearchEntry {
	id: number;
	name: string;
	description: string;
	parameters: string;
}

async function buildIndex(deferred: readonly AnyAgentTool[]): Promise<MiniSearch<SearchEntry>> {
	const { default: MiniSearch } = await import("minisearch");
	const index = new MiniSearch<SearchEntry>({
		fields: ["name", "description", "parameters"],
		storeFields: [],
		searchOptions: { boost: { name: 3, description: 1, parameters: 0.5 }, prefix: true, fuzzy: 0.2 },
	});
	index.addAll(
		deferred.map((tool, id) => ({
			id,
			name: nameWords(tool.name),
			description: tool.description,
			parameters: parameterWords(tool),
		})),
	);
	return index;
}

/**
 * Tool search for large tool sets (many MCP servers): when there are more tools than `threshold`,
 * each request carries only the core tools and `tool_search`; a search ranks the other tools with
 * MiniSearch (BM25 over the words of the name, which weigh most, the description and the
 * parameters' names and descriptions, with prefix and fuzzy matching), returns the best
 * definitions, and loads them: from then on they go into every request. Every tool stays callable
 * at once (from a code program too); the requests just do not carry them until found.
 *
 * @example
 * const search = createToolSearch({ tools: [...builtIns, ...mcp.tools] });
 * const agent = new Agent({ model, tools: [...search.tools], requestTools: () => search.requestTools() });
 */
export function createToolSearch(options: ToolSearchOptions): ToolSearch {
	const threshold = options.threshold ?? DEFAULT_TOOL_SEARCH_THRESHOLD;
	const active = options.tools.length > threshold;
	const core = new Set(
		options.coreToolNames ?? options.tools.map((tool) => tool.name).filter((name) => !name.includes("__")),
	);
	const deferred = options.tools.filter((tool) => !core.has(tool.name));
	const loaded = new Set<string>();
	// Built at the first search, with MiniSearch loaded then: most tool sets never search, and
	// every process that imports the tools would otherwise load it.
	let index: Promise<MiniSearch<SearchEntry>> | undefined;
	const indexNow = () => {
		index ??= buildIndex(deferred);
		return index;
	};
	const maxResults = options.maxResults ?? 5;
	const searchTool: AnyAgentTool = {
		name: TOOL_SEARCH_NAME,
		description: DESCRIPTION,
		parameters: Type.Object({
			query: Type.String({ description: "What you want to do, or words of a tool's name." }),
			limit: Type.Optional(
				Type.Integer({ minimum: 1, maximum: 20, description: `Most matches. Default: ${maxResults}.` }),
			),
		}),
		annotations: {
			title: "Search tools",
			readOnlyHint: true,
			destructiveHint: false,
			idempotentHint: true,
			openWorldHint: false,
		},
		executionMode: "parallel",
		target: () => ({ access: "read" }),
		execute: async (_id, args) => {
			const { query, limit } = args as { query: string; limit?: number };
			const found = (await indexNow())
				.search(query)
				.slice(0, limit ?? maxResults)
				.map((hit) => deferred[hit.id as number] as AnyAgentTool);
			if (found.length === 0) {
				return {
					content: [
						{
							type: "text",
							text: `No tool matches "${query}". Try other words (what the tool does, or part of its name).`,
						},
					],
					details: { found: [] },
				};
			}
			for (const tool of found) loaded.add(tool.name);
			const text = `${found.length} tool${found.length === 1 ? "" : "s"} found and loaded (callable from your next reply):\n${found.map(definitionText).join("\n")}`;
			return { content: [{ type: "text", text }], details: { found: found.map((tool) => tool.name) } };
		},
	};
	const tools = active ? [...options.tools, searchTool] : [...options.tools];
	return {
		active,
		tools,
		loaded,
		requestTools: () =>
			active ? tools.filter((tool) => core.has(tool.name) || tool === searchTool || loaded.has(tool.name)) : [...tools],
	};
}
