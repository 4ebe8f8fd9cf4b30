import type { Static, TSchema } from "typebox";
import type { AgentTool, ToolDefinition, ToolResult, ToolTarget } from "../../engine/index.js";
import type { SearchBackendName, SearchOperations } from "../../workspace/index.js";
import { createLocalWorkspace, type Workspace } from "../../workspace/index.js";
import { createSearchOperations, localFileOperations, searchThroughFiles } from "../../workspace/local/index.js";
import { prepareAhead } from "../registry/prepare-ahead.js";
import { toolFrom } from "../tool-definition.js";
import type { SearchRunResult } from "./run-search.js";

/**
 * Most characters in a search pattern or glob (the schemas' `maxLength`). Each reaches ripgrep as one
 * program argument, which Linux caps at 128 KiB (a longer one could not even start it: E2BIG), and a
 * glob is also compiled by picomatch, which refuses past 65,536. 32,768 characters stay below both
 * in any encoding, and the validation error names the argument before anything runs.
 */
export const MAX_SEARCH_PATTERN_LENGTH = 32_768;

/** Options grep and find share. */
export interface SearchToolOptions {
	/** What the tool acts on: its folder and path resolution (the search itself goes through `operations`). Default: a local workspace at `cwd`. */
	workspace?: Workspace;
	/** Side effects (process execution, file system). Default: ripgrep with the built-in walker as fallback. */
	operations?: SearchOperations;
	/** Path of an `rg` binary to use instead of the one from `@vscode/ripgrep`. Default: the bundled binary. */
	rgPath?: string;
	/** Force a backend: `auto` tries ripgrep then the walker. Default: `auto`. */
	backend?: "auto" | SearchBackendName;
	/** Honour .gitignore, .ignore and .rgignore files. Default: true. */
	respectIgnoreFiles?: boolean;
	/** Milliseconds before the search stops and returns what it found so far. Default: 60,000. */
	timeoutMs?: number;
	/** Output budget in bytes. Default: `DEFAULT_MAX_BYTES` (50 KB). */
	maxBytes?: number;
	/** Output budget in lines. Default: `DEFAULT_MAX_LINES` (2,000). */
	maxLines?: number;
	/** When what the first search needs is started: ms after the tool's creation (see `ToolsOptions.prepareAfterMs`). Default: 0. */
	prepareAfterMs?: number;
}

/** Facts grep and find results share, for programs and UIs. */
export interface SearchRunDetails {
	/** The backend that searched: `ripgrep`, or the built-in `walker` when ripgrep could not run. */
	backend: SearchBackendName;
	/** Why the walker searched instead of ripgrep. */
	fallbackReason?: string;
	/** True when the whole output was cut to the output budget. */
	outputTruncated?: boolean;
	/** True when the search stopped at the timeout and the result is partial. */
	timedOut?: boolean;
}

/** What a search tool runs with: its folder, its path resolution and its backend. */
export interface SearchToolSetup {
	/** The tool's working directory. */
	cwd: string;
	/** Resolves and pins the folder searched. */
	workspace: Workspace;
	/** The search backend. */
	operations: SearchOperations;
}

/** One call of a search tool, as its named function receives it. */
export interface SearchToolCall<TArgs, TOptions> {
	/** The tool's folder, workspace and backend. */
	setup: SearchToolSetup;
	/** The tool's options. */
	options: TOptions;
	/** The validated arguments. */
	args: TArgs;
	/** Aborts the call. */
	signal: AbortSignal | undefined;
	/** The target the engine resolved for the call (the one the hooks saw), when it passed one. */
	callTarget: ToolTarget | undefined;
}

/**
 * The workspace and backend of a search tool, from its options (local ones by default). A
 * workspace's own search wins; a workspace on another disk without one (in memory, virtual) is
 * searched through its file operations, never with ripgrep on this machine's disk.
 */
export function searchToolSetup(cwd: string, options: SearchToolOptions): SearchToolSetup {
	const workspace = options.workspace ?? createLocalWorkspace(cwd);
	const own = (workspace as { search?: SearchOperations }).search;
	const operations =
		options.operations ??
		own ??
		(workspace.files === localFileOperations
			? createSearchOperations({ rgPath: options.rgPath, backend: options.backend })
			: searchThroughFiles(workspace.files));
	return { cwd, workspace, operations };
}

/**
 * A search call's target: the folder it lists below. No near-miss guess for a missing folder: the
 * tool says it is missing in its own words.
 */
export function searchTarget(workspace: Workspace, path: string | undefined): Promise<ToolTarget> {
	return workspace.resolveTarget({ access: "list", path: path ?? "." }, { nearMiss: false });
}

/** `text` followed, after a blank line, by each notice in brackets on its own line. */
export function withNotices(text: string, notices: readonly string[]): string {
	if (notices.length === 0) return text;
	return `${text}\n\n${notices.map((notice) => `[${notice}]`).join("\n")}`;
}

/** How a search ran, as its result's details state it (only the facts that apply). */
export function searchRunDetails(run: SearchRunResult): SearchRunDetails {
	const details: SearchRunDetails = { backend: run.backend };
	if (run.fallbackReason) details.fallbackReason = run.fallbackReason;
	if (run.timedOut) details.timedOut = true;
	return details;
}

/** What `createSearchTool` builds a search tool (grep, find) from. */
export interface SearchToolSpec<TParameters extends TSchema, TDetails, TOptions extends SearchToolOptions> {
	/** The tool's model-facing definition; its arguments have an optional `path`, the folder searched. */
	definition: ToolDefinition<TParameters>;
	/** The tool's working directory. */
	cwd: string;
	/** The tool's options. */
	options: TOptions;
	/** Repairs the model's common argument mistakes. */
	prepareArguments: (args: unknown) => unknown;
	/** Runs one call. */
	run: (call: SearchToolCall<Static<TParameters>, TOptions>) => Promise<ToolResult<TDetails>>;
}

/** A runnable search tool: its workspace and backend from the options, its folder as the target. */
export function createSearchTool<TParameters extends TSchema, TDetails, TOptions extends SearchToolOptions>(
	spec: SearchToolSpec<TParameters, TDetails, TOptions>,
): AgentTool<TParameters, TDetails> {
	const { options, run } = spec;
	const setup = searchToolSetup(spec.cwd, options);
	// The backend starts what the first search needs now (or soon), not inside the call.
	const ahead = prepareAhead(() => setup.operations.prepareAtCreation?.(), options.prepareAfterMs);
	return toolFrom(spec.definition, {
		prepareArguments: spec.prepareArguments,
		target: (args) => searchTarget(setup.workspace, (args as { path?: string }).path),
		execute: (_toolCallId, args, signal, _onUpdate, call) => {
			ahead.beforeCall();
			return run({ setup, options, args, signal, callTarget: call?.target });
		},
	});
}
