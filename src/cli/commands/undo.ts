import { relative, sep } from "node:path";
import type { Checkpoint, Checkpoints, RestoreOptions, RestoreReport } from "../../checkpoints/index.js";
import { visibleName } from "../../workspace/index.js";
import { booleanOption, type ParsedArgs, stringOption, UsageError } from "../args.js";
import { type CliIO, ExitCode } from "../io.js";
import { resolveCwd } from "../paths.js";
import { createCliCheckpoints } from "../setup/safety-setup.js";
import { openCliWorkspace } from "../setup/workspace-option.js";

function countOption(args: ParsedArgs, name: string): number | undefined {
	const text = stringOption(args.values, name);
	if (text === undefined) return undefined;
	const value = Number(text);
	if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} needs a whole number ≥ 1, got '${text}'.`);
	return value;
}

/**
 * A path from the checkpoint log as the terminal shows it: relative to `cwd` when inside, its
 * control characters escaped (`visibleName`): the model picks the names the agent writes, and a
 * name holding ESC or a newline would otherwise erase or forge the lines of this report.
 */
function shown(cwd: string, path: string): string {
	const inside = relative(cwd, path);
	return visibleName(inside === "" || inside.startsWith("..") ? path : inside.split(sep).join("/"));
}

const DONE: Record<string, string> = { absent: "removed", file: "restored", symlink: "relinked" };

/**
 * Runs `work` on the checkpoints of the folder `--cwd` (or the current one) or of the remote
 * workspace `--workspace` names, whose connection is closed afterwards.
 */
async function withCheckpoints(
	args: ParsedArgs,
	io: CliIO,
	work: (checkpoints: Checkpoints, cwd: string) => Promise<number>,
): Promise<number> {
	const workspace = await openCliWorkspace(args.values);
	try {
		const cwd = workspace?.cwd ?? (await resolveCwd(io, args.values));
		let checkpoints: Checkpoints;
		try {
			checkpoints = await createCliCheckpoints(cwd, io, workspace);
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			io.stderr.write(`toolbelt: could not open the checkpoints of ${workspace?.label ?? cwd}: ${reason}\n`);
			return ExitCode.error;
		}
		return await work(checkpoints, cwd);
	} finally {
		await workspace?.close();
	}
}

/** `toolbelt undo [--turns N | --calls N] [--force] [--workspace URL]`: puts files back as they were before the last turns or calls. */
export async function runUndoCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	const turns = countOption(args, "turns");
	const calls = countOption(args, "calls");
	if (turns !== undefined && calls !== undefined) throw new UsageError("Use either --turns or --calls, not both.");
	return withCheckpoints(args, io, (checkpoints, cwd) =>
		undoWith(checkpoints, cwd, io, { turns, calls, force: booleanOption(args.values, "force") }),
	);
}

async function undoWith(checkpoints: Checkpoints, cwd: string, io: CliIO, options: RestoreOptions): Promise<number> {
	if ((await checkpoints.list()).length === 0) {
		io.stdout.write("Nothing to undo: no checkpoints are recorded for this folder.\n");
		return ExitCode.ok;
	}
	const report = await checkpoints.restore(options);
	const text = describeUndo(cwd, report, "toolbelt undo --force (with the same options)");
	const failed = (report.calls === 0 && report.conflicts.length > 0) || report.refused.length > 0;
	(failed || report.calls === 0 ? io.stderr : io.stdout).write(text);
	return failed ? ExitCode.error : ExitCode.ok;
}

/** The log entries undo would not follow, said first whatever else happened. */
function describeRefused(cwd: string, report: RestoreReport): string {
	if (report.refused.length === 0) return "";
	const dropped = report.calls > 0 ? "Their entries were dropped from the checkpoint log.\n" : "";
	return `Not restored, nothing written there (each line says why):\n${report.refused
		.map((entry) => `  ${shown(cwd, entry.path)}: ${visibleName(entry.reason)}\n`)
		.join("")}${dropped}`;
}

/** What an undo did, or why it did nothing, for a person. */
export function describeUndo(cwd: string, report: RestoreReport, forceHint = "toolbelt undo --force"): string {
	return describeRefused(cwd, report) + describeRestore(cwd, report, forceHint);
}

function describeRestore(cwd: string, report: RestoreReport, forceHint: string): string {
	if (report.calls === 0 && report.conflicts.length > 0) {
		return `Nothing was undone: these files changed after the checkpoint, by something other than toolbelt's tools:\n${report.conflicts
			.map((path) => `  ${shown(cwd, path)}\n`)
			.join("")}Run ${forceHint} to overwrite them anyway.\n`;
	}
	if (report.calls === 0) return "Nothing to undo.\n";
	if (report.restored.length === 0 && report.refused.length > 0) return "No other file was changed.\n";
	const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
	const forced =
		report.conflicts.length > 0
			? `Overwritten (--force) despite later changes: ${report.conflicts.map((path) => shown(cwd, path)).join(", ")}\n`
			: "";
	return `Undid ${plural(report.calls, "call")} in ${plural(report.turns, "turn")}:\n${report.restored
		.map((file) => `  ${DONE[file.to]} ${shown(cwd, file.path)}\n`)
		.join(
			"",
		)}${report.foldersRemoved.map((folder) => `  removed empty folder ${shown(cwd, folder)}\n`).join("")}${forced}`;
}

/** One line per turn: when, how many calls, which files. */
export function describeCheckpoints(cwd: string, all: readonly Checkpoint[]): string {
	const turns = new Map<string, Checkpoint[]>();
	for (const checkpoint of all) turns.set(checkpoint.turn, [...(turns.get(checkpoint.turn) ?? []), checkpoint]);
	const lines = [...turns.values()].reverse().map((group, index) => {
		const first = group[0] as Checkpoint;
		const files = [...new Set(group.flatMap((checkpoint) => checkpoint.files.map((file) => shown(cwd, file.path))))];
		const tools = [...new Set(group.map((checkpoint) => checkpoint.tool))].join(", ");
		const when = new Date(first.time).toISOString().replace("T", " ").slice(0, 19);
		return `${index + 1}. ${when}  ${group.length} call${group.length === 1 ? "" : "s"} (${tools}): ${files.join(", ")}`;
	});
	return lines.length === 0
		? "No checkpoints are recorded for this folder.\n"
		: `Turns, newest first (toolbelt undo --turns N takes back the first N):\n${lines.join("\n")}\n`;
}

/** `toolbelt checkpoints [--workspace URL]`: lists the recorded turns, newest first. */
export async function runCheckpointsCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	return withCheckpoints(args, io, async (checkpoints, cwd) => {
		io.stdout.write(describeCheckpoints(cwd, await checkpoints.list()));
		return ExitCode.ok;
	});
}
