import { formatSize } from "../../../engine/index.js";
import { MAX_WALKER_LINE_BYTES } from "../../../workspace/index.js";
import { DEFAULT_SEARCH_TIMEOUT_MS, formatDuration } from "../run-search.js";
import type { GrepCollector } from "./collector.js";
import { digestGrepCut, type GrepCutDetails } from "./digest.js";
import type { GrepStopPoint } from "./early-stop.js";
import type { GrepMatchTally } from "./match-tally.js";

/** The model-facing text of a grep result, with a notice for each limit that applied (added to `notices`). */
export function describeGrepOutput(facts: {
	output: ReturnType<GrepCollector["formatWithin"]>;
	collector: GrepCollector;
	details: { outputTruncated?: boolean; cut?: GrepCutDetails };
	notices: string[];
	args: { context?: number };
	limit: number;
	maxLines: number;
	maxBytes: number;
	options: { maxLineLength?: number; timeoutMs?: number };
	run: { timedOut: boolean };
	/** Every match the search saw, for the digest of a cut result. */
	tally: GrepMatchTally;
	/** Where the search stopped after the limit (files in path order), when it did not run to its end. */
	stoppedAt?: GrepStopPoint;
	/** The searched path as the model named it. */
	searchedPath: string;
	/** True when one file was searched (its search stops at the limit). */
	singleFile: boolean;
}): string {
	const { output, collector, details, notices, args, limit, maxLines, maxBytes, options, run } = facts;
	let text = output.text;
	if (text === "" && output.binaryFiles.length > 0) {
		// "No matches found" would send the model looking elsewhere for something that is here.
		text = `${output.binaryFiles.join(", ")}: binary file matches; grep does not print binary content. Use read on it to see what kind of file it is.`;
	} else if (text === "") {
		text = run.timedOut ? "No matches found before the search timed out." : "No matches found";
	} else {
		const cut = digestGrepCut({
			blocks: output.blocks,
			grouped: (args.context ?? 0) > 0,
			tally: facts.tally,
			budget: { maxLines, maxBytes },
			limit,
			limitReached: collector.limitReached,
			countsComplete: !run.timedOut && !(facts.singleFile && collector.limitReached),
			stoppedAt: facts.stoppedAt,
			searchedPath: facts.searchedPath,
			singleFile: facts.singleFile,
		});
		if (cut) {
			text = cut.text;
			details.cut = cut.details;
			if (cut.details.outputCut) details.outputTruncated = true;
		}
	}
	if (output.context < (args.context ?? 0) && output.text !== "") {
		notices.push(
			`Showing ${output.context} lines of context instead of ${args.context}, so that the matches fit the output. Use read with offset and limit to see more around a match.`,
		);
	}
	if (output.binaryFiles.length > 0 && output.text !== "") {
		notices.push(`Binary files that match, content not shown: ${output.binaryFiles.join(", ")}.`);
	}
	if (output.longLines.length > 0) {
		notices.push(
			`Lines longer than ${formatSize(MAX_WALKER_LINE_BYTES)} were not searched (the built-in search holds a line whole, up to that size): ${output.longLines.join(", ")}. To search them, cut them into pieces with bash, e.g. fold -w 4096 FILE | grep -n PATTERN.`,
		);
	}
	if (output.linesCut) {
		notices.push(
			`Lines longer than ${options.maxLineLength ?? 500} characters were cut around the match; use read with offset to see them whole.`,
		);
	}
	if (run.timedOut) {
		notices.push(
			`The search timed out after ${formatDuration(options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS)}; the results are partial. Search a smaller path or use include to narrow the files; if the pattern has nested quantifiers or large counted repetitions, simplify it.`,
		);
	}
	return text;
}
