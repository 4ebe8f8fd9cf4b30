import type { Static } from "typebox";
import type { AgentTool, ToolResult } from "../engine/index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, ToolError, Type } from "../engine/index.js";
import type { SearchOperations } from "../workspace/index.js";
import { PathGroups, resolveToolPath } from "../workspace/index.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import {
	caseInsensitiveGlob,
	findIsCaseSensitive,
	findPatternError,
	literalPathFallback,
} from "./search/find-patterns.js";
import { formatListing } from "./search/format-listing.js";
import { rebaseGlob, splitPathGlob } from "./search/path-glob.js";
import { runPinnedSearch } from "./search/pinned-search.js";
import { prepareFindArguments } from "./search/prepare-arguments.js";
import { DEFAULT_SEARCH_TIMEOUT_MS, formatDuration, resolveSearchTarget } from "./search/run-search.js";
import {
	createSearchTool,
	MAX_SEARCH_PATTERN_LENGTH,
	type SearchRunDetails,
	type SearchToolCall,
	type SearchToolOptions,
	searchRunDetails,
	withNotices,
} from "./search/search-tool.js";
import { defineTool } from "./tool-definition.js";

const DESCRIPTION = `Find files by glob pattern and get their paths, relative to the searched directory, sorted.
A pattern without '/' matches file names at any depth ('*.ts', 'package.json'); a pattern with '/' matches the relative path ('src/**/*.test.ts', '.github/workflows/*.yml').
Honours .gitignore, .ignore and .rgignore; includes hidden files; never lists .git/. Returns at most \`limit\` paths (default 1000).`;

/** The find tool's arguments. */
export const findSchema = Type.Object(
	{
		pattern: Type.String({
			description: "Glob to match, e.g. '*.ts' (any depth), 'src/**/*.test.ts', '.github/workflows/*.yml'.",
			maxLength: MAX_SEARCH_PATTERN_LENGTH,
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
/** The runnable find tool. */
export type FindTool = AgentTool<typeof findSchema, FindToolDetails>;

/** The find tool as the model sees it. */
export const createFindToolDefinition = defineTool(
	{ name: "find", title: "Find files by name", effect: "reads" },
	findSchema,
	DESCRIPTION,
);

/** Structured facts about a find result, for programs and UIs. */
export interface FindToolDetails extends SearchRunDetails {
	/** Paths returned. */
	fileCount: number;
	/** The `limit` that was applied, set only when more files matched than were returned. */
	resultLimitReached?: number;
	/**
	 * The first matching path past the limit, set when the listing came in path order and stopped
	 * there: the files after it were not counted, so the total is unknown.
	 */
	firstNotShown?: string;
}

/**
 * Most paths collected before sorting. Beyond it the listing stops (bounded memory), and the
 * paths shown are the first in path order among those found so far.
 */
const MAX_COLLECTED_PATHS = 100_000;

/**
 * Up to this limit the listing is asked for in path order and stops past the first `limit`
 * paths. ripgrep then walks in one thread: for a limit this small it stops long before a
 * parallel walk of the whole tree would end (9 against 25–30 ms for the first 1,000 of 12,000
 * files); for a larger one the parallel walk of the whole tree, sorted after, is the faster.
 */
const ORDERED_LISTING_MAX_LIMIT = 10_000;

/**
 * The find tool's side effects: the search backend shared by grep and find (ripgrep, the
 * built-in walker, or your own for a remote workspace). See `createSearchOperations`.
 */
export type FindOperations = SearchOperations;

/** Options of the find tool. */
export interface FindToolOptions extends SearchToolOptions {
	/** Default for the `limit` argument. Default: 1,000. */
	defaultLimit?: number;
}

/** The runnable find tool: lists files below `cwd` (or the given path) with ripgrep or the fallback walker. */
export function createFindTool(cwd: string, options: FindToolOptions = {}): FindTool {
	const definition = createFindToolDefinition(cwd, options);
	return createSearchTool({ definition, cwd, options, prepareArguments: prepareFindArguments, run: runFind });
}

type FindCall = SearchToolCall<FindToolInput, FindToolOptions>;

/** What a listing collected: the paths, and what stopped it before its end. */
interface CollectedPaths {
	paths: PathGroups;
	/** The collection cap stopped an unordered listing. */
	capReached: boolean;
	/** The backend lists in path order: the listing stops past the first `limit` paths. */
	ordered: boolean;
	/** The first path past the limit of an ordered listing (the rest was not listed). */
	firstNotShown: string | undefined;
}

/** Lists the matching files, then words them (or why there are none). */
async function runFind(call: FindCall): Promise<ToolResult<FindToolDetails>> {
	const { setup, options, args } = call;
	const { cwd, operations } = setup;
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
	// Asked for in path order (a limit up to ORDERED_LISTING_MAX_LIMIT), the listing stops once it
	// has the first `limit` paths (and knows there are more). Otherwise, or from a backend that lists
	// in any order, all are collected (up to a cap) and the first `limit` in path order are shown:
	// either way the same call gives the same files.
	const collected: CollectedPaths = {
		paths: new PathGroups(),
		capReached: false,
		ordered: false,
		firstNotShown: undefined,
	};
	const { paths } = collected;
	const pathOrder = limit <= ORDERED_LISTING_MAX_LIMIT;
	const timeoutMs = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
	const run = await runPinnedSearch({
		workspace: setup.workspace,
		callTarget: call.callTarget,
		root: target.root,
		display: target.display,
		start: async (opened, searchSignal) => {
			const stream = await operations.listFiles(
				{
					root: target.root,
					...opened,
					pattern,
					respectIgnoreFiles: options.respectIgnoreFiles ?? true,
					pathOrder,
				},
				searchSignal,
			);
			// Only when asked for: the walker always walks in order, and must answer as ripgrep does.
			collected.ordered = pathOrder && stream.pathOrdered === true;
			return stream;
		},
		pathOf: (path) => path,
		onBatch: (batch) => collectBatch(collected, batch, limit),
		signal: call.signal,
		timeoutMs,
	}).catch((error: unknown) => {
		throw findPatternError(error);
	});
	const literal = paths.count === 0 ? await literalPathFallback(operations, target.root, args.pattern) : undefined;
	if (literal) paths.add(literal.path);
	const limitReached = collected.capReached || collected.firstNotShown !== undefined || paths.count > limit;
	const details: FindToolDetails = { ...searchRunDetails(run), fileCount: Math.min(paths.count, limit) };
	if (limitReached) details.resultLimitReached = limit;
	if (collected.firstNotShown !== undefined) details.firstNotShown = collected.firstNotShown;
	if (paths.count === 0) {
		return { content: [{ type: "text", text: noFilesText(args.pattern, run.timedOut, timeoutMs) }], details };
	}
	const notices: string[] = literal ? [literal.notice] : [];
	const text = listingText({ call, collected, details, notices, limit, timeoutMs });
	return { content: [{ type: "text", text: withNotices(text, notices) }], details };
}

/** Files one batch of the listing; false once it has what it needs (see `CollectedPaths`). */
function collectBatch(collected: CollectedPaths, batch: readonly string[], limit: number): boolean {
	const { paths } = collected;
	const collectLimit = Math.max(limit, MAX_COLLECTED_PATHS);
	for (const path of batch) {
		if (collected.ordered && paths.count >= limit) {
			collected.firstNotShown = path;
			return false;
		}
		if (paths.count >= collectLimit) {
			collected.capReached = true;
			return false;
		}
		paths.add(path);
	}
	return true;
}

/** The answer when nothing matched, with a hint for a bare word (matched against whole names). */
function noFilesText(pattern: string, timedOut: boolean, timeoutMs: number): string {
	let text = timedOut
		? `No files found before the listing timed out after ${formatDuration(timeoutMs)}.`
		: "No files found";
	// A bare word is matched against whole names: "Button" misses Button.tsx, "src" lists no folder.
	const word = pattern.trim().replace(/\/+$/, "");
	if (word !== "" && !/[*?[\]{}/]/.test(word)) {
		text += ` (the pattern matches whole file names: use '*${word}*' for names that contain it, or '${word}/**' for the files in a folder of that name).`;
	}
	return text;
}

/** The listing within the output budget; adds to `notices` what was cut, left out or not reached. */
function listingText(facts: {
	call: FindCall;
	collected: CollectedPaths;
	details: FindToolDetails;
	notices: string[];
	limit: number;
	timeoutMs: number;
}): string {
	const { call, collected, details, notices, limit, timeoutMs } = facts;
	const { paths } = collected;
	const listing = formatListing(paths, {
		maxBytes: call.options.maxBytes ?? DEFAULT_MAX_BYTES,
		maxLines: call.options.maxLines ?? DEFAULT_MAX_LINES,
		limit,
	});
	if (listing.shownPaths < listing.listedPaths || listing.shownBytes < listing.totalBytes) {
		details.outputTruncated = true;
		notices.push(
			`Output cut to ${listing.shownPaths} of ${listing.listedPaths} paths (${formatSize(listing.shownBytes)} of ${formatSize(listing.totalBytes)}). Use a more specific pattern or path.`,
		);
	}
	if (details.resultLimitReached !== undefined) notices.push(limitNotice(collected, limit));
	if (details.timedOut) {
		notices.push(
			`The listing timed out after ${formatDuration(timeoutMs)}; the results are partial. Use a smaller path.`,
		);
	}
	return listing.text;
}

/** What the limit left out: how many more files match, or, for a listing stopped at the limit, from where on. */
function limitNotice(collected: CollectedPaths, limit: number): string {
	const narrow = `Use a more specific pattern or path, or raise limit (e.g. limit: ${limit * 2}).`;
	if (collected.firstNotShown !== undefined) {
		return `Showing the first ${limit} matching files, in path order; more match from ${collected.firstNotShown} on (not counted: the listing stopped at the limit). ${narrow}`;
	}
	const matched = collected.capReached ? `more than ${collected.paths.count}` : `${collected.paths.count}`;
	return `Showing the first ${limit} of ${matched} matching files, in path order. ${narrow}`;
}

/** The registry's entry of find (see `ToolEntry`). */
export const findToolEntry = toolEntry({
	name: "find",
	definition: createFindToolDefinition,
	tool: createFindTool,
	seam: toolSeams.search,
	groups: ["readOnly", "path", "preparesAhead"],
});
