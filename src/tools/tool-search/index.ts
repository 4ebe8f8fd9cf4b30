export {
	createToolSearch,
	DEFAULT_TOOL_SEARCH_THRESHOLD,
	TOOL_SEARCH_NAME,
	type ToolSearch,
	type ToolSearchOptions,
} from "./tool-search.js";
