import type { Static } from "typebox";
import type { AgentTool, ToolResult } from "../engine/index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, ToolError, Type } from "../engine/index.js";
import type { GrepLine, SearchOperations } from "../workspace/index.js";
import { resolveToolPath, visibleName } from "../workspace/index.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { GrepCollector } from "./search/grep/collector.js";
import type { GrepCutDetails } from "./search/grep/digest.js";
import { GrepEarlyStop } from "./search/grep/early-stop.js";
import { GrepMatchTally } from "./search/grep/match-tally.js";
import { OrderedGrepCollector } from "./search/grep/ordered-collector.js";
import { describeGrepOutput } from "./search/grep/output-text.js";
import { rebaseGlob, splitPathGlob } from "./search/path-glob.js";
import { runPinnedSearch } from "./search/pinned-search.js";
import { prepareGrepArguments } from "./search/prepare-arguments.js";
import { DEFAULT_SEARCH_TIMEOUT_MS, resolveSearchTarget } from "./search/run-search.js";
import {
	createSearchTool,
	MAX_SEARCH_PATTERN_LENGTH,
	type SearchRunDetails,
	type SearchToolCall,
	type SearchToolOptions,
	searchRunDetails,
	withNotices,
} from "./search/search-tool.js";
import { describeSkippedFiles, findSkippedFiles } from "./search/skipped-files.js";
import { defineTool } from "./tool-definition.js";

const DESCRIPTION = `Search file contents with a regular expression (ripgrep syntax) and get matching lines as \`path:line: text\`, context lines as \`path-line- text\`, groups divided by \`--\`.
Paths are relative to the searched directory. Honours .gitignore, .ignore and .rgignore; searches hidden files; never searches .git/.
Use \`literal: true\` for plain text with regex characters, \`include\`/\`exclude\` globs (e.g. \`*.ts\`, \`src/**\`) to narrow the files, \`context\` for surrounding lines.
Returns at most \`limit\` matches (default 100); long lines are cut around the match.`;

/** `line` with its path as results show it (see `visibleName`). */
function shownLine(line: GrepLine): GrepLine {
	const path = visibleName(line.path);
	return path === line.path ? line : { ...line, path };
}

/** The grep tool's arguments. */
export const grepSchema = Type.Object(
	{
		pattern: Type.String({
			description: "Regular expression to search for (ripgrep/Rust syntax), or plain text with literal: true.",
			maxLength: MAX_SEARCH_PATTERN_LENGTH,
		}),
		path: Type.Optional(
			Type.String({ description: "Directory or file to search, relative to the working directory. Default: ." }),
		),
		include: Type.Optional(
			Type.String({
				description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.{ts,tsx}'.",
				maxLength: MAX_SEARCH_PATTERN_LENGTH,
			}),
		),
		exclude: Type.Optional(
			Type.String({
				description: "Skip files and folders matching this glob, e.g. '*.min.js' or 'dist/**'.",
				maxLength: MAX_SEARCH_PATTERN_LENGTH,
			}),
		),
		case_sensitive: Type.Optional(Type.Boolean({ description: "Match case exactly. Default: true." })),
		literal: Type.Optional(
			Type.Boolean({ description: "Treat the pattern as plain text, not a regular expression. Default: false." }),
		),
		context: Type.Optional(
			Type.Integer({ minimum: 0, description: "Lines of context to show before and after each match. Default: 0." }),
		),
		limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most matches to return. Default: 100." })),
	},
	{ additionalProperties: false },
);

/** The grep tool's validated arguments. */
export type GrepToolInput = Static<typeof grepSchema>;
/** The runnable grep tool. */
export type GrepTool = AgentTool<typeof grepSchema, GrepToolDetails>;

/** The grep tool as the model sees it. */
export const createGrepToolDefinition = defineTool(
	{ name: "grep", title: "Search file contents", effect: "reads" },
	grepSchema,
	DESCRIPTION,
);

/** Structured facts about a grep result, for programs and UIs. */
export interface GrepToolDetails extends SearchRunDetails {
	/** Matching lines returned. */
	matchCount: number;
	/** Files with at least one returned match. */
	fileCount: number;
	/** The `limit` that was applied, set only when more matches existed than were returned. */
	matchLimitReached?: number;
	/** True when at least one long line was cut around its match. */
	linesTruncated?: boolean;
	/** Set when the limit or the budget cut matches: what was shown of what the search saw (see the digest in the text). */
	cut?: GrepCutDetails;
	/** Binary files that hold a match, whose content is not shown (a binary file named as `path`). */
	binaryFiles?: string[];
}

/**
 * The grep tool's side effects: the search backend shared by grep and find (ripgrep, the
 * built-in walker, or your own for a remote workspace). See `createSearchOperations`.
 */
export type GrepOperations = SearchOperations;

/** Options of the grep tool. */
export interface GrepToolOptions extends SearchToolOptions {
	/** Default for the `limit` argument. Default: 100. */
	defaultLimit?: number;
	/** Longest line shown in full, in characters; longer lines are cut around the match. Default: 500. */
	maxLineLength?: number;
}

/** The runnable grep tool: searches below `cwd` (or the given path) with ripgrep or the fallback walker. */
export function createGrepTool(cwd: string, options: GrepToolOptions = {}): GrepTool {
	const definition = createGrepToolDefinition(cwd, options);
	return createSearchTool({ definition, cwd, options, prepareArguments: prepareGrepArguments, run: runGrep });
}

type GrepCall = SearchToolCall<GrepToolInput, GrepToolOptions>;

/** Searches, then words what was found (and, when nothing was, which files were skipped). */
async function runGrep(call: GrepCall): Promise<ToolResult<GrepToolDetails>> {
	const { setup, options, args, signal } = call;
	const { cwd, workspace, operations } = setup;
	const limit = args.limit ?? options.defaultLimit ?? 100;
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	// More context than the output has lines could never be shown: do not collect it.
	const context = Math.min(args.context ?? 0, maxLines);
	const notices: string[] = [];
	const { path, include } = await globInPath(call, notices);
	const target = await resolveSearchTarget({ cwd, path, operations, allowFile: true });
	const folders = { cwd, root: target.root };
	const filters = {
		include: include === undefined ? undefined : rebaseGlob(include, folders),
		exclude: args.exclude ? rebaseGlob(args.exclude, folders) : undefined,
		respectIgnoreFiles: options.respectIgnoreFiles ?? true,
	};
	const collectorOptions = { limit, context, maxLineLength: options.maxLineLength ?? 500 };
	// One file is searched in order: its first matches are the first N, and the search can stop there.
	const collector =
		target.file === undefined ? new OrderedGrepCollector(collectorOptions) : new GrepCollector(collectorOptions);
	const tally = new GrepMatchTally(limit + 100);
	// A folder is searched in path order, so the search can stop soon after the first N matches.
	const earlyStop = new GrepEarlyStop(limit, context);
	const run = await runPinnedSearch({
		workspace,
		callTarget: call.callTarget,
		root: target.root,
		display: target.display,
		start: async (opened, searchSignal) => {
			const stream = await operations.grep(
				{
					root: target.root,
					...opened,
					file: target.file,
					pattern: args.pattern,
					literal: args.literal ?? false,
					caseSensitive: args.case_sensitive ?? true,
					context,
					pathOrder: target.file === undefined,
					...filters,
				},
				searchSignal,
			);
			earlyStop.enabled = target.file === undefined && stream.pathOrdered === true;
			return stream;
		},
		pathOf: (line) => line.path,
		onBatch: (found) => {
			// From here on names are as shown: a control character in one would split or colour the output.
			const batch = found.map(shownLine);
			const taken = earlyStop.take(batch);
			const lines = taken === batch.length ? batch : batch.slice(0, taken);
			tally.add(lines);
			return collector.add(lines) && earlyStop.stoppedAt === undefined;
		},
		signal,
		timeoutMs: options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS,
	});
	const output = collector.formatWithin({ maxLines, maxBytes });
	const details: GrepToolDetails = {
		...searchRunDetails(run),
		matchCount: collector.matchCount,
		fileCount: output.fileCount,
	};
	if (collector.limitReached) details.matchLimitReached = limit;
	if (output.linesCut) details.linesTruncated = true;
	if (output.binaryFiles.length > 0) details.binaryFiles = output.binaryFiles;
	const text = describeGrepOutput({
		output,
		collector,
		details,
		notices,
		args,
		limit,
		maxLines,
		maxBytes,
		options,
		run,
		tally,
		stoppedAt: earlyStop.stoppedAt,
		searchedPath: target.display,
		singleFile: target.file !== undefined,
	});
	if (output.text === "" && output.binaryFiles.length === 0 && !run.timedOut && target.file === undefined) {
		const skipped = await findSkippedFiles({
			workspace,
			callTarget: call.callTarget,
			search: operations,
			root: target.root,
			display: target.display,
			...filters,
			signal,
		});
		const said = describeSkippedFiles(skipped);
		if (said) notices.push(said);
	}
	return { content: [{ type: "text", text: withNotices(text, notices) }], details };
}

/**
 * A glob written into `path` (`src/*.ts`) that names no existing file is read as the folder plus an
 * `include` (and the model told so); with an `include` given too, it is refused.
 */
async function globInPath(call: GrepCall, notices: string[]): Promise<{ path?: string; include?: string }> {
	const { path, include } = call.args;
	const pathGlob = path === undefined ? undefined : splitPathGlob(path);
	if (!pathGlob || (await call.setup.operations.stat(resolveToolPath(call.setup.cwd, path as string)))) {
		return { path, include: include || undefined };
	}
	if (include) {
		throw new ToolError(
			`path must be a folder or file, not a glob: ${path}. Pass path: "${pathGlob.folder}" and put the file filter into include.`,
		);
	}
	notices.push(`Read path "${path}" as path "${pathGlob.folder}" with include "${pathGlob.glob}".`);
	return { path: pathGlob.folder, include: pathGlob.glob };
}

/** The registry's entry of grep (see `ToolEntry`). */
export const grepToolEntry = toolEntry({
	name: "grep",
	definition: createGrepToolDefinition,
	tool: createGrepTool,
	seam: toolSeams.search,
	groups: ["readOnly", "path", "preparesAhead"],
});
