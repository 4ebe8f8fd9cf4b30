import { diagnoseChanges } from "../../diagnostics/index.js";
import type { ToolResult } from "../../engine/index.js";
import { ToolError, throwIfAborted, truncateTail, withFileMutationQueue } from "../../engine/index.js";
import { guardSyntax } from "../../syntax/index.js";
import {
	encodingName,
	type FileInfo,
	type FileOperations,
	isNotFound,
	legacyAsUtf8,
	utf8AsLegacy,
	type WorkspaceTarget,
	writeFileAtomic,
} from "../../workspace/index.js";
import { inPlaceNotice } from "../fs/in-place-notice.js";
import { fileSystemErrorMessage, notFoundError } from "../fs/messages.js";
import { diffEdit } from "./diff/diff.js";
import { cutDiff, diffLineCount } from "./diff/diff-cut.js";
import { planExactBytes } from "./fast-path.js";
import { type EditMatchStrategy, type EditRequest, MATCH_STRATEGIES, STRATEGY_NOTES } from "./matching/match.js";
import { type AppliedReplacement, planEdits } from "./plan.js";
import { resolvedPathOf } from "./resolved-target.js";
import { BOM_BYTES, hasBom, isValidUtf8 } from "./text.js";
import { bytesSource, stringSource, type TextSource } from "./text-source.js";
import type { EditArguments, EditToolDetails, EditToolOptions } from "./types.js";

const DEFAULT_MAX_FILE_BYTES = 256 * 2 ** 20;
/** Most UTF-8 bytes of diff kept in `details` (the model sees far less). */
const MAX_DETAILS_DIFF_BYTES = 2 ** 20;

/** What one edit call needs. */
export interface RunEditOptions {
	cwd: string;
	input: EditArguments;
	signal: AbortSignal | undefined;
	options: EditToolOptions;
	/** The edited file as its workspace resolved it, once per call (`callTarget`). */
	target: WorkspaceTarget;
}

/** An edit worked out in memory, ready to write and to describe. */
interface Outcome {
	output: Buffer;
	original: TextSource;
	updated: TextSource;
	replacements: AppliedReplacement[];
	strategies: EditMatchStrategy[];
}

/** The replacements a call asks for: the top-level pair and/or `edits`, duplicates dropped. */
function requestsOf(input: EditArguments): EditRequest[] {
	const requests: EditRequest[] = [];
	if (input.old_string !== undefined || input.new_string !== undefined) {
		if (input.old_string === undefined || input.new_string === undefined) {
			throw new ToolError(
				`${input.old_string === undefined ? "old_string" : "new_string"} is missing: give old_string and new_string together, or a list in edits.`,
			);
		}
		requests.push({ oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all ?? false });
	}
	for (const edit of input.edits ?? []) {
		const request = { oldString: edit.old_string, newString: edit.new_string, replaceAll: edit.replace_all ?? false };
		const duplicate = requests.some(
			(other) => other.oldString === request.oldString && other.newString === request.newString,
		);
		if (!duplicate) requests.push(request);
	}
	if (requests.length === 0) {
		throw new ToolError(
			"Nothing to edit: give old_string and new_string, or edits: [{ old_string, new_string }]. To create or replace a whole file, use write.",
		);
	}
	return requests;
}

async function missingFile(cwd: string, absolutePath: string, operations: FileOperations): Promise<ToolError> {
	const error = await notFoundError({ cwd, absolutePath, operations });
	return new ToolError(`${error.message}\nedit only changes existing files: to create one, use write.`, error.details);
}

/**
 * Reads the file inside its mutation queue. Kind and size come from the look-up made before
 * queueing (a FIFO must not be read at all); the read itself reports a file that went away.
 */
async function readForEdit(options: {
	operations: FileOperations;
	cwd: string;
	absolutePath: string;
	shown: string;
	info: FileInfo | undefined;
	maxBytes: number;
}): Promise<Buffer> {
	const { operations, cwd, absolutePath, shown, info, maxBytes } = options;
	if (info?.kind === "directory")
		throw new ToolError(`${shown} is a directory, not a file. Use ls to see what it holds.`);
	if (info && info.kind !== "file")
		throw new ToolError(`${shown} is not a regular file; edit changes text files only.`);
	if (info && info.size > maxBytes) {
		throw new ToolError(
			`${shown} is ${Math.round(info.size / 2 ** 20)} MB, more than edit loads (${Math.round(maxBytes / 2 ** 20)} MB). Use bash (e.g. sed) for a file this large.`,
		);
	}
	try {
		return await operations.readFile(absolutePath);
	} catch (error) {
		if (isNotFound(error)) throw await missingFile(cwd, absolutePath, operations);
		throw new ToolError(fileSystemErrorMessage(error, shown, "read"));
	}
}

/**
 * Works the edit out in memory: byte for byte when every old_string occurs exactly (no decoding of
 * a large file), else on the decoded text with the full matching ladder.
 */
function planOutcome(bytes: Buffer, requests: readonly EditRequest[], shown: string): Outcome {
	const bom = hasBom(bytes);
	const body = bom ? bytes.subarray(BOM_BYTES.length) : bytes;
	const fast = planExactBytes({ body, prefix: bom ? BOM_BYTES : Buffer.alloc(0), requests });
	if (fast) {
		const original = bytesSource(body);
		return {
			output: fast.output,
			original,
			updated: bytesSource(fast.body),
			replacements: fast.replacements,
			strategies: requests.map(() => "exact"),
		};
	}
	const text = body.toString("utf8");
	try {
		const plan = planEdits(text, requests);
		return {
			// Without a BOM the encoded text is the output: no second copy of a large file.
			output: bom ? Buffer.concat([BOM_BYTES, Buffer.from(plan.content, "utf8")]) : Buffer.from(plan.content, "utf8"),
			original: stringSource(text),
			updated: stringSource(plan.content),
			replacements: plan.replacements,
			strategies: plan.strategies,
		};
	} catch (error) {
		if (error instanceof ToolError) throw new ToolError(`Edit of ${shown} failed: ${error.message}`, error.details);
		throw error;
	}
}

function mostTolerant(strategies: readonly EditMatchStrategy[]): EditMatchStrategy {
	let rank = 0;
	for (const strategy of strategies) rank = Math.max(rank, MATCH_STRATEGIES.indexOf(strategy));
	return MATCH_STRATEGIES[rank] ?? "exact";
}

/**
 * One edit call: inside the file's mutation queue, read, plan every replacement against the
 * original text (all or nothing), write atomically, and describe the change as a compact diff.
 */
export async function runEdit(run: RunEditOptions): Promise<ToolResult<EditToolDetails>> {
	const { cwd, input, signal, options } = run;
	const operations = options.operations ?? run.target.workspace.files;
	const requests = requestsOf(input);
	// Resolved by the workspace, which tolerates invisible differences in names (Unicode spaces, NFC/NFD).
	const { absolutePath, info, key, display: shown } = resolvedPathOf(run.target, input.path);
	return withFileMutationQueue(
		absolutePath,
		async () => {
			throwIfAborted(signal);
			const read = await readForEdit({
				operations,
				cwd,
				absolutePath,
				shown,
				info,
				maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
			});
			// Legacy single-byte text is edited decoded and written back in its own encoding.
			const { bytes, encoding } = legacyAsUtf8(read);
			if (!isValidUtf8(bytes)) {
				throw new ToolError(
					`${shown} is not valid UTF-8 text (a binary file or another encoding such as Latin-1), so edit refuses it and left it unchanged. Use bash for byte-level changes, or write to replace it with UTF-8 text.`,
				);
			}
			const outcome = planOutcome(bytes, requests, shown);
			throwIfAborted(signal);
			const output = encoding ? utf8AsLegacy(outcome.output, encoding, shown) : outcome.output;
			if (output instanceof Error) throw new ToolError(output.message);
			const syntax = await guardSyntax([{ path: absolutePath, display: shown, before: bytes, after: outcome.output }], {
				mode: options.syntaxCheck,
				allowErrors: input.allow_syntax_errors,
			});
			throwIfAborted(signal);
			let written: Awaited<ReturnType<typeof writeFileAtomic>> | undefined;
			try {
				written = await writeFileAtomic(absolutePath, output, { operations, flush: options.flush ?? false });
			} catch (error) {
				const reason = fileSystemErrorMessage(error, shown, "write");
				throw new ToolError(`${reason}${reason.includes("unchanged") ? "" : " The file was not changed."}`);
			}
			const diagnostics = await diagnoseChanges(options.diagnostics, [
				{ path: absolutePath, display: shown, before: bytes, after: outcome.output },
			]);
			const diff = diffEdit({
				original: outcome.original,
				updated: outcome.updated,
				replacements: outcome.replacements,
				path: shown,
			});
			// details travel to UIs and MCP clients whole: a diff of every line of a large file must not.
			const keptDiff = truncateTail(diff.text, {
				maxBytes: MAX_DETAILS_DIFF_BYTES,
				maxLines: Number.POSITIVE_INFINITY,
			});
			const details: EditToolDetails = {
				path: shown,
				absolutePath,
				diff: keptDiff.content,
				diffTruncated: keptDiff.truncated,
				firstChangedLine: diff.firstChangedLine,
				replacements: outcome.replacements.length,
				strategy: mostTolerant(outcome.strategies),
				strategies: outcome.strategies,
				bom: hasBom(bytes),
				linesAdded: diff.added,
				linesRemoved: diff.removed,
				...(syntax.files.length > 0 ? { syntax: syntax.files } : {}),
				...(diagnostics.files.length > 0 ? { diagnostics: diagnostics.files } : {}),
			};
			const inPlace = written ? inPlaceNotice(written).trim() : "";
			const kept =
				(encoding ? `\n[Kept the file's ${encodingName(encoding)} encoding.]` : "") +
				(inPlace ? `\n[${inPlace}]` : "") +
				[...syntax.notes, ...diagnostics.notes].map((note) => `\n${note}`).join("");
			return { content: [{ type: "text", text: summarize(details, diff.text, diff.notShownLines) + kept }], details };
		},
		{ key },
	);
}

/** `notShownLines`: diff lines counted, not made (the diff's last line says so instead). */
function summarize(details: EditToolDetails, fullDiff: string, notShownLines: number): string {
	const count = details.replacements;
	const how = details.strategy === "exact" ? "" : ` (${STRATEGY_NOTES[details.strategy]})`;
	const head = `Edited ${details.path}: ${count} replacement${count === 1 ? "" : "s"}${how}, first changed line ${details.firstChangedLine}.`;
	const shownDiff = cutDiff(fullDiff);
	const note = shownDiff.truncated
		? `\n[diff cut to ${shownDiff.outputLines} of ${diffLineCount(shownDiff.originalLines, notShownLines)} lines; read the file to see the rest]`
		: "";
	return `${head}\n${shownDiff.content}${note}`;
}
