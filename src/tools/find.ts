import type { Static } from "typebox";
import { ToolError } from "../engine/errors.js";
import { Type } from "../engine/schema-builder.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "../engine/truncate.js";
import type { AgentTool, ToolDefinition } from "../engine/types.js";
import { resolveToolPath } from "./fs/paths.js";
import {
	caseInsensitiveGlob,
	findIsCaseSensitive,
	findPatternError,
	literalPathFallback,
} from "./search/find-patterns.js";
import { formatListing } from "./search/format-listing.js";
import { createSearchOperations } from "./search/operations.js";
import { rebaseGlob, splitPathGlob } from "./search/path-glob.js";
import { runPinnedSearch } from "./search/pinned-search.js";
import { prepareFindArguments } from "./search/prepare-arguments.js";
import { DEFAULT_SEARCH_TIMEOUT_MS, formatDuration, resolveSearchTarget } from "./search/run-search.js";
import { PathGroups } from "./search/sort-paths.js";
import type { SearchBackendName, SearchOperations } from "./search/types.js";
import { createLocalWorkspace, type Workspace } from "./workspace.js";

const DESCRIPTION = `Find files by glob pattern and get their paths, relative to the searched directory, sorted.
A pattern without '/' matches file names at any depth ('*.ts', 'package.json'); a pattern with '/' matches the relative path ('src/**/*.test.ts', '.github/workflows/*.yml').
Honours .gitignore, .ignore and .rgignore; includes hidden files; never lists .git/. Returns at most \`limit\` paths (default 1000).`;

/** The find tool's arguments. */
export const findSchema = Type.Object(
	{
		pattern: Type.String({
			description: "Glob to match, e.g. '*.ts' (any depth), 'src/**/*.test.ts', '.github/workflows/*.yml'.",
		}),
		path: Type.Optional(
			Type.String({ description: "Directory to search, relative to the working directory. Default: ." }),
		),
		limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most paths to return. Default: 1000." })),
		case_sensitive: Type.Optional(
			Type.Boolean({
				description: "Match case exactly. Default: smart case (exact when the pattern has an upper-case letter).",
			}),
		),
	},
	{ additionalProperties: false },
);

/** The find tool's validated arguments. */
export type FindToolInput = Static<typeof findSchema>;

/** Structured facts about a find result, for programs and UIs. */
export interface FindToolDetails {
	/** The backend that listed files: `ripgrep`, or the built-in `walker` when ripgrep could not run. */
	backend: SearchBackendName;
	/** Why the walker listed files instead of ripgrep. */
	fallbackReason?: string;
	/** Paths returned. */
	fileCount: number;
	/** The `limit` that was applied, set only when more files matched than were returned. */
	resultLimitReached?: number;
	/** True when the whole output was cut to the output budget. */
	outputTruncated?: boolean;
	/** True when the listing stopped at the timeout and the result is partial. */
	timedOut?: boolean;
}

/**
 * Most paths collected before sorting. Beyond it the listing stops (bounded memory), and the
 * paths shown are the first in path order among those found so far.
 */
const MAX_COLLECTED_PATHS = 100_000;

/**
 * The find tool's side effects: the search backend shared by grep and find (ripgrep, the
 * built-in walker, or your own for a remote workspace). See `createSearchOperations`.
 */
export type FindOperations = SearchOperations;

/** Options of the find tool. */
export interface FindToolOptions {
	/** What the tool acts on: its folder and path resolution (the search itself goes through `operations`). Default: a local workspace at `cwd`. */
	workspace?: Workspace;
	/** Side effects (process execution, file system). Default: ripgrep with the built-in walker as fallback. */
	operations?: FindOperations;
	/** Path of an `rg` binary to use instead of the one from `@vscode/ripgrep`. Default: the bundled binary. */
	rgPath?: string;
	/** Force a backend: `auto` tries ripgrep then the walker. Default: `auto`. */
	backend?: "auto" | SearchBackendName;
	/** Honour .gitignore, .ignore and .rgignore files. Default: true. */
	respectIgnoreFiles?: boolean;
	/** Milliseconds before the listing stops and returns what it found so far. Default: 60,000. */
	timeoutMs?: number;
	/** Default for the `limit` argument. Default: 1,000. */
	defaultLimit?: number;
	/** Output budget in bytes. Default: `DEFAULT_MAX_BYTES` (50 KB). */
	maxBytes?: number;
	/** Output budget in lines. Default: `DEFAULT_MAX_LINES` (2,000). */
	maxLines?: number;
}

/** The find tool as the model sees it. */
export function createFindToolDefinition(
	_cwd: string,
	_options: FindToolOptions = {},
): ToolDefinition<typeof findSchema> {
	return {
		name: "find",
		description: DESCRIPTION,
		parameters: findSchema,
		annotations: {
			title: "Find files by name",
			readOnlyHint: true,
			destructiveHint: false,
			idempotentHint: true,
			openWorldHint: false,
		},
	};
}

/** The runnable find tool: lists files below `cwd` (or the given path) with ripgrep or the fallback walker. */
export function createFindTool(
	cwd: string,
	options: FindToolOptions = {},
): AgentTool<typeof findSchema, FindToolDetails> {
	const operations = options.operations ?? createSearchOperations({ rgPath: options.rgPath, backend: options.backend });
	const workspace = options.workspace ?? createLocalWorkspace(cwd);
	return {
		...createFindToolDefinition(cwd, options),
		executionMode: "parallel",
		prepareArguments: prepareFindArguments,
		target: ({ path }) => workspace.resolveTarget({ access: "list", path: path ?? "." }, { nearMiss: false }),
		execute: async (_toolCallId, args, signal, _onUpdate, context) => {
			const limit = args.limit ?? options.defaultLimit ?? 1000;
			const pathGlob = args.path === undefined ? undefined : splitPathGlob(args.path);
			if (pathGlob && !(await operations.stat(resolveToolPath(cwd, args.path as string)))) {
				throw new ToolError(
					`path must be a folder, not a glob: ${args.path}. Pass path: "${pathGlob.folder}" and put the glob into pattern.`,
				);
			}
			const target = await resolveSearchTarget({ cwd, path: args.path, operations, allowFile: false });
			const rebased = rebaseGlob(args.pattern, { cwd, root: target.root });
			const pattern = findIsCaseSensitive(args.pattern, args.case_sensitive) ? rebased : caseInsensitiveGlob(rebased);
			// Filed by folder as ripgrep lists them, so sorting at the end has little left to do. All
			// matches are collected (up to a cap) and the first `limit` in path order are shown, so
			// the same call always gives the same files, whatever order the parallel walk found them in.
			const paths = new PathGroups();
			const collectLimit = Math.max(limit, MAX_COLLECTED_PATHS);
			let collectLimitReached = false;
			const timeoutMs = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
			const run = await runPinnedSearch({
				workspace,
				callTarget: context?.target,
				root: target.root,
				display: target.display,
				start: (openedRoot, searchSignal) =>
					operations.listFiles(
						{ root: target.root, openedRoot, pattern, respectIgnoreFiles: options.respectIgnoreFiles ?? true },
						searchSignal,
					),
				pathOf: (path) => path,
				onBatch: (batch) => {
					for (const path of batch) {
						if (paths.count >= collectLimit) {
							collectLimitReached = true;
							return false;
						}
						paths.add(path);
					}
					return true;
				},
				signal,
				timeoutMs,
			}).catch((error: unknown) => {
				throw findPatternError(error);
			});
			const literal = paths.count === 0 ? await literalPathFallback(operations, target.root, args.pattern) : undefined;
			if (literal) paths.add(literal.path);
			const limitReached = collectLimitReached || paths.count > limit;
			const details: FindToolDetails = { backend: run.backend, fileCount: Math.min(paths.count, limit) };
			if (run.fallbackReason) details.fallbackReason = run.fallbackReason;
			if (limitReached) details.resultLimitReached = limit;
			if (run.timedOut) details.timedOut = true;

			if (paths.count === 0) {
				let text = run.timedOut
					? `No files found before the listing timed out after ${formatDuration(timeoutMs)}.`
					: "No files found";
				// A bare word is matched against whole names: "Button" misses Button.tsx, "src" lists no folder.
				const word = args.pattern.trim().replace(/\/+$/, "");
				if (word !== "" && !/[*?[\]{}/]/.test(word)) {
					text += ` (the pattern matches whole file names: use '*${word}*' for names that contain it, or '${word}/**' for the files in a folder of that name).`;
				}
				return { content: [{ type: "text", text }], details };
			}
			const notices: string[] = literal ? [literal.notice] : [];
			const listing = formatListing(paths, {
				maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
				maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
				limit,
			});
			let text = listing.text;
			if (listing.shownPaths < listing.listedPaths || listing.shownBytes < listing.totalBytes) {
				details.outputTruncated = true;
				notices.push(
					`Output cut to ${listing.shownPaths} of ${listing.listedPaths} paths (${formatSize(listing.shownBytes)} of ${formatSize(listing.totalBytes)}). Use a more specific pattern or path.`,
				);
			}
			if (limitReached) {
				const matched = collectLimitReached ? `more than ${paths.count}` : `${paths.count}`;
				notices.push(
					`Showing the first ${limit} of ${matched} matching files, in path order. Use a more specific pattern or path, or raise limit (e.g. limit: ${limit * 2}).`,
				);
			}
			if (run.timedOut) {
				notices.push(
					`The listing timed out after ${formatDuration(timeoutMs)}; the results are partial. Use a smaller path.`,
				);
			}
			if (notices.length > 0) text += `\n\n${notices.map((notice) => `[${notice}]`).join("\n")}`;
			return { content: [{ type: "text", text }], details };
		},
	};
}
