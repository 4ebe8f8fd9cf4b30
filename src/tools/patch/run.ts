import { type ChangeDiagnostics, diagnoseChanges } from "../../diagnostics/index.js";
import type { ToolResult } from "../../engine/index.js";
import { ToolError, throwIfAborted, truncateTail } from "../../engine/index.js";
import { type GuardedFile, guardSyntax, type SyntaxCheckMode } from "../../syntax/index.js";
import type { Workspace, WorkspaceTarget } from "../../workspace/index.js";
import { type FileOperations, isNotFound } from "../../workspace/index.js";
import { diffEdit } from "../edit/diff/diff.js";
import { diffLineCount } from "../edit/diff/diff-cut.js";
import { STRATEGY_NOTES } from "../edit/matching/match.js";
import { BOM_BYTES, hasBom, isValidUtf8 } from "../edit/text.js";
import { stringSource } from "../edit/text-source.js";
import { fileSystemErrorMessage, notFoundError } from "../fs/messages.js";
import { type PatchOperation, parsePatch } from "./parse.js";
import { planFilePatch } from "./plan.js";
import { withFileMutationQueues } from "./queue.js";
import { targetsOfPatch } from "./target.js";
import { applyAllOrNothing, type FileChange } from "./transaction.js";
import type { ApplyPatchDetails, PatchFileDetails } from "./types.js";

const DEFAULT_MAX_FILE_BYTES = 256 * 2 ** 20;
/** Most UTF-8 bytes of diff kept in `details` (the model sees far less), as edit. */
const MAX_DETAILS_DIFF_BYTES = 2 ** 20;

/** What one apply_patch call needs. */
export interface RunPatchOptions {
	workspace: Workspace;
	/** The call's target (its `parts` resolved by the workspace, possibly confined by guards). */
	target: WorkspaceTarget | undefined;
	patch: string;
	signal: AbortSignal | undefined;
	flush?: boolean;
	maxFileBytes?: number;
	/** The syntax check's mode (`ApplyPatchToolOptions.syntaxCheck`). */
	syntaxCheck?: SyntaxCheckMode;
	/** The call's `allow_syntax_errors`. */
	allowSyntaxErrors?: boolean;
	/** The session's language servers (`ApplyPatchToolOptions.diagnostics`). */
	diagnostics?: ChangeDiagnostics;
}

/** One file operation worked out in memory: the changes to make and how to describe them. */
interface PlannedOperation {
	changes: FileChange[];
	details: PatchFileDetails;
	diff: string;
	/** Diff lines counted but not made (see `EditDiff.notShownLines`). */
	diffNotShown?: number;
}

interface PlanInput {
	files: FileOperations;
	workspace: Workspace;
	maxBytes: number;
}

async function readExisting(input: PlanInput, part: WorkspaceTarget, verb: string): Promise<Buffer> {
	const resolved = part.resolved;
	const shown = resolved?.display ?? part.path ?? "";
	if (!resolved) throw new ToolError(fileSystemErrorMessage(part.resolveError, shown, verb));
	const info = await input.files.stat(resolved.absolutePath).catch((error: unknown) => {
		if (isNotFound(error)) return undefined;
		throw new ToolError(fileSystemErrorMessage(error, shown, verb));
	});
	if (!info) {
		const error = await notFoundError({
			cwd: input.workspace.cwd,
			absolutePath: resolved.absolutePath,
			operations: input.files,
		});
		throw new ToolError(`${error.message}\nTo create a file, use *** Add File:. No file was changed.`, error.details);
	}
	if (info.kind !== "file")
		throw new ToolError(`Cannot ${verb} ${shown}: it is not a regular file. No file was changed.`);
	if (info.size > input.maxBytes) {
		throw new ToolError(`${shown} is larger than apply_patch loads (${input.maxBytes} bytes). No file was changed.`);
	}
	return input.files.readFile(resolved.absolutePath);
}

/** What is at a path now (undefined when nothing is), with its mode, for restoring it. */
async function currentContent(
	files: FileOperations,
	absolutePath: string,
): Promise<{ bytes: Buffer; mode: number } | undefined> {
	const info = await files.stat(absolutePath).catch(() => undefined);
	if (!info) return undefined;
	if (info.kind !== "file") {
		throw new ToolError(
			`Cannot write ${absolutePath}: something that is not a regular file is there. No file was changed.`,
		);
	}
	return { bytes: await files.readFile(absolutePath), mode: info.mode };
}

function pathOf(part: WorkspaceTarget): { absolutePath: string; display: string } {
	if (!part.resolved) throw new ToolError(fileSystemErrorMessage(part.resolveError, part.path ?? "", "write"));
	return part.resolved;
}

function wholeFileDiff(display: string, before: string, after: string): ReturnType<typeof diffEdit> {
	return diffEdit({
		original: stringSource(before),
		updated: stringSource(after),
		replacements: [{ editIndex: 0, start: 0, end: before.length, newStart: 0, newEnd: after.length }],
		path: display,
	});
}

async function planAdd(input: PlanInput, operation: PatchOperation & { kind: "add" }, part: WorkspaceTarget) {
	const { absolutePath, display } = pathOf(part);
	const existing = await currentContent(input.files, absolutePath);
	const content = Buffer.from(operation.content, "utf8");
	const diff = wholeFileDiff(display, existing?.bytes.toString("utf8") ?? "", operation.content);
	return {
		changes: [{ absolutePath, display, content, before: existing?.bytes, beforeMode: existing?.mode }],
		details: { path: display, absolutePath, action: "added", linesAdded: diff.added, linesRemoved: diff.removed },
		diff: diff.text,
		diffNotShown: diff.notShownLines,
	} satisfies PlannedOperation;
}

async function planDelete(input: PlanInput, part: WorkspaceTarget): Promise<PlannedOperation> {
	const before = await readExisting(input, part, "delete");
	const { absolutePath, display } = pathOf(part);
	const mode = (await input.files.stat(absolutePath)).mode;
	const lines = before.length === 0 ? 0 : before.toString("utf8").split("\n").length - (before.at(-1) === 10 ? 1 : 0);
	return {
		changes: [{ absolutePath, display, content: undefined, before, beforeMode: mode }],
		details: { path: display, absolutePath, action: "deleted", linesAdded: 0, linesRemoved: lines },
		diff: "",
	};
}

async function planUpdate(
	input: PlanInput,
	operation: PatchOperation & { kind: "update" },
	part: WorkspaceTarget,
	destination: WorkspaceTarget | undefined,
): Promise<PlannedOperation> {
	const bytes = await readExisting(input, part, "update");
	const { absolutePath, display } = pathOf(part);
	if (!isValidUtf8(bytes)) {
		throw new ToolError(`${display} is not valid UTF-8 text, so apply_patch refuses it. No file was changed.`);
	}
	const bom = hasBom(bytes);
	const text = (bom ? bytes.subarray(BOM_BYTES.length) : bytes).toString("utf8");
	const plan = operation.hunks.length > 0 ? planFilePatch(display, text, operation.hunks) : undefined;
	const updated = plan?.content ?? text;
	const output = Buffer.concat([bom ? BOM_BYTES : Buffer.alloc(0), Buffer.from(updated, "utf8")]);
	const diff = plan
		? diffEdit({
				original: stringSource(text),
				updated: stringSource(updated),
				replacements: plan.replacements,
				path: display,
			})
		: { text: "", added: 0, removed: 0, notShownLines: 0 };
	const mode = (await input.files.stat(absolutePath)).mode;
	const details: PatchFileDetails = {
		path: display,
		absolutePath,
		action: "updated",
		linesAdded: diff.added,
		linesRemoved: diff.removed,
		strategies: plan?.strategies ?? [],
		bom,
	};
	if (!destination) {
		return {
			changes: [{ absolutePath, display, content: output, before: bytes, beforeMode: mode }],
			details,
			diff: diff.text,
			diffNotShown: diff.notShownLines,
		};
	}
	const target = pathOf(destination);
	if (await currentContent(input.files, target.absolutePath)) {
		throw new ToolError(
			`Cannot move ${display} to ${target.display}: ${target.display} already exists. Delete it in the same patch first, or choose another name. No file was changed.`,
		);
	}
	return {
		changes: [
			{ ...target, content: output, before: undefined, beforeMode: undefined },
			{ absolutePath, display, content: undefined, before: bytes, beforeMode: mode },
		],
		details: { ...details, action: "moved", movedTo: target.display },
		diff: diff.text,
		diffNotShown: diff.notShownLines,
	};
}

function planOperation(
	input: PlanInput,
	operation: PatchOperation,
	parts: readonly WorkspaceTarget[],
): Promise<PlannedOperation> {
	const [part, destination] = parts;
	if (!part) throw new Error("apply_patch: an operation without its resolved path");
	if (operation.kind === "add") return planAdd(input, operation, part);
	if (operation.kind === "delete") return planDelete(input, part);
	return planUpdate(input, operation, part, destination);
}

/** Two operations on one file would each be planned against the old content: refuse it. */
function checkDistinct(groups: readonly (readonly WorkspaceTarget[])[]): void {
	const seen = new Map<string, string>();
	for (const part of groups.flat()) {
		const key = part.resolved?.key ?? part.path ?? "";
		const earlier = seen.get(key);
		if (earlier !== undefined) {
			throw new ToolError(
				`The patch touches ${part.resolved?.display ?? part.path} more than once (also as ${earlier}). Put all hunks of a file in one *** Update File: section. No file was changed.`,
			);
		}
		seen.set(key, part.resolved?.display ?? part.path ?? "");
	}
}

function describe(planned: readonly PlannedOperation[]): string {
	const lines = planned.map(({ details }) => {
		const counts = `+${details.linesAdded} -${details.linesRemoved}`;
		const tolerant = (details.strategies ?? []).filter((strategy) => strategy !== "exact");
		const how =
			tolerant.length > 0 ? `; ${[...new Set(tolerant)].map((strategy) => STRATEGY_NOTES[strategy]).join("; ")}` : "";
		const verb =
			details.action === "moved"
				? `Moved ${details.path} to ${details.movedTo}`
				: `${details.action[0]?.toUpperCase()}${details.action.slice(1)} ${details.path}`;
		return `${verb} (${counts}${how})`;
	});
	return `Applied the patch to ${planned.length} file${planned.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

/** Each file the patch writes, with what it held before (a moved file: what its source held). */
function syntaxFilesOf(planned: readonly PlannedOperation[]): GuardedFile[] {
	return planned.flatMap(({ changes }) => {
		const source = changes.find((change) => change.content === undefined);
		return changes
			.filter((change) => change.content !== undefined)
			.map((change) => ({
				path: change.absolutePath,
				display: change.display,
				before: change.before ?? source?.before,
				after: change.content,
			}));
	});
}

/** Lines of the whole diff of a patch: its text's, with each file's lines not made in place of the line saying so. */
function wholeDiffLines(textLines: number, planned: readonly PlannedOperation[]): number {
	return planned.reduce((lines, item) => diffLineCount(lines, item.diffNotShown ?? 0), textLines);
}

/** The files a patch deletes or moves away (their language servers forget them). */
function deletedFilesOf(planned: readonly PlannedOperation[]): GuardedFile[] {
	return planned.flatMap(({ changes }) =>
		changes
			.filter((change) => change.content === undefined)
			.map((change) => ({
				path: change.absolutePath,
				display: change.display,
				before: change.before,
				after: undefined,
			})),
	);
}

/**
 * One apply_patch call: parse, hold the mutation slot of every file, read and plan every hunk of
 * every file (any failure: nothing written), then write each file atomically, restoring the ones
 * already written if a later one fails. Describes the change as a compact diff per file.
 */
export async function runPatch(run: RunPatchOptions): Promise<ToolResult<ApplyPatchDetails>> {
	const { workspace, signal } = run;
	const operations = parsePatch(run.patch);
	const groups = await targetsOfPatch(workspace, operations, run.target);
	checkDistinct(groups);
	const input: PlanInput = {
		files: workspace.filesFor(run.target),
		workspace,
		maxBytes: run.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
	};
	const keys = groups.flat().map((part) => part.resolved?.key ?? workspace.lexicalPath(part.path ?? ""));
	return withFileMutationQueues(keys, async () => {
		throwIfAborted(signal);
		const planned: PlannedOperation[] = [];
		for (const [index, operation] of operations.entries()) {
			planned.push(await planOperation(input, operation, groups[index] ?? []));
		}
		// Judged on the patch's final result, every file before any is written.
		const changed = syntaxFilesOf(planned);
		const syntax = await guardSyntax(changed, {
			mode: run.syntaxCheck,
			allowErrors: run.allowSyntaxErrors,
		});
		throwIfAborted(signal);
		await applyAllOrNothing(
			input.files,
			planned.flatMap((item) => item.changes),
			{ flush: run.flush },
		);
		const diagnostics = await diagnoseChanges(run.diagnostics, [...changed, ...deletedFilesOf(planned)]);
		const fullDiff = planned
			.map((item) => item.diff)
			.filter((text) => text !== "")
			.join("\n");
		const kept = truncateTail(fullDiff, { maxBytes: MAX_DETAILS_DIFF_BYTES, maxLines: Number.POSITIVE_INFINITY });
		const shown = truncateTail(fullDiff);
		const note = shown.truncated
			? `\n[diff cut to ${shown.outputLines} of ${wholeDiffLines(shown.originalLines, planned)} lines; read the files to see the rest]`
			: "";
		return {
			content: [
				{ type: "text", text: `${describe(planned)}\n${shown.content}${note}`.trimEnd() },
				...[...syntax.notes, ...diagnostics.notes].map((text) => ({ type: "text" as const, text })),
			],
			details: {
				files: planned.map((item) => item.details),
				diff: kept.content,
				diffTruncated: kept.truncated,
				...(syntax.files.length > 0 ? { syntax: syntax.files } : {}),
				...(diagnostics.files.length > 0 ? { diagnostics: diagnostics.files } : {}),
			},
		};
	});
}
