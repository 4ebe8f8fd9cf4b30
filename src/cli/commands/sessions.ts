import { realpath } from "node:fs/promises";
import type { SessionSummary } from "../../sessions/index.js";
import { booleanOption, type ParsedArgs, stringOption, UsageError } from "../args.js";
import { type CliIO, ExitCode } from "../io.js";
import { resolveCwd } from "../paths.js";
import { homeOf } from "../setup/session-recording.js";

/** Most sessions listed unless `--limit` says otherwise. */
const DEFAULT_LIST_LIMIT = 20;

function limitOption(args: ParsedArgs): number {
	const text = stringOption(args.values, "limit");
	if (text === undefined) return DEFAULT_LIST_LIMIT;
	const value = Number(text);
	if (!Number.isInteger(value) || value < 1) throw new UsageError(`--limit needs a whole number ≥ 1, got '${text}'.`);
	return value;
}

function localTime(milliseconds: number): string {
	const date = new Date(milliseconds);
	const pad = (value: number) => String(value).padStart(2, "0");
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Two lines on one recorded session: id, start, source, counts (and folder), then its first prompt. */
export function describeSession(summary: SessionSummary, showFolder: boolean): string {
	const prompt = summary.firstPrompt.length > 60 ? `${summary.firstPrompt.slice(0, 59)}…` : summary.firstPrompt;
	const tokens =
		summary.tokens.input + summary.tokens.output > 0
			? ` · ${summary.tokens.input}+${summary.tokens.output} tokens`
			: "";
	const head = `${summary.id}  ${localTime(summary.startedAt)}  ${summary.source}`;
	const counts = `${summary.turns} turn${summary.turns === 1 ? "" : "s"} · ${summary.toolCalls} call${summary.toolCalls === 1 ? "" : "s"}${tokens}`;
	return `${head}  ${counts}${showFolder ? `  ${summary.cwd}` : ""}\n    ${JSON.stringify(prompt)}`;
}

/**
 * Opens the sessions folder for reading, or says on stderr why it cannot be used (and returns
 * undefined): a folder that is not the user's private one is never read.
 */
export async function openSessionsForReading(io: CliIO) {
	const { SessionStore } = await import("../../sessions/index.js");
	try {
		return SessionStore.open({ env: io.env, homeDir: homeOf(io) });
	} catch (error) {
		io.stderr.write(`toolbelt: ${error instanceof Error ? error.message : String(error)}\n`);
		return undefined;
	}
}

/** `toolbelt sessions [--all] [--limit N] [--json]`: the recorded sessions of this folder (or all), newest first. */
export async function runSessionsCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	const all = booleanOption(args.values, "all");
	const limit = limitOption(args);
	const cwd = await resolveCwd(io, args.values);
	const folder = await realpath(cwd).catch(() => cwd);
	const store = await openSessionsForReading(io);
	if (!store) return ExitCode.error;
	const { readSessionFile, summarize } = await import("../../sessions/index.js");
	const found: SessionSummary[] = [];
	for (const id of await store.ids()) {
		if (found.length >= limit) break;
		const session = await readSessionFile(store.pathOf(id)).catch(() => undefined);
		if (!session || (!all && session.header.cwd !== folder)) continue;
		found.push(summarize(session));
	}
	if (booleanOption(args.values, "json")) {
		io.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
		return ExitCode.ok;
	}
	if (found.length === 0) {
		io.stdout.write(
			all
				? `No recorded sessions in ${store.dir}.\n`
				: `No recorded sessions of ${folder}. All folders: toolbelt sessions --all\n`,
		);
		return ExitCode.ok;
	}
	for (const summary of found) io.stdout.write(`${describeSession(summary, all)}\n`);
	io.stdout.write(
		'\nContinue one: toolbelt run --resume <id> "…" (or toolbelt --resume <id>) · view it: toolbelt export <id> · replay it: toolbelt replay <id>\n',
	);
	return ExitCode.ok;
}

/** `toolbelt export <id> [--output file]`: one self-contained HTML page of a recorded session. */
export async function runExportCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	const wanted = args.positionals[0];
	if (wanted === undefined)
		throw new UsageError("Name the session: toolbelt export <id> (list them with toolbelt sessions).");
	const store = await openSessionsForReading(io);
	if (!store) return ExitCode.error;
	const { readSessionFile, renderSessionHtml } = await import("../../sessions/index.js");
	let id: string;
	try {
		id = await store.find(wanted);
	} catch (error) {
		throw new UsageError(error instanceof Error ? error.message : String(error), { showHelpHint: false });
	}
	const html = renderSessionHtml(await readSessionFile(store.pathOf(id)));
	const { resolve } = await import("node:path");
	const { writeFile } = await import("node:fs/promises");
	const output = resolve(io.cwd, stringOption(args.values, "output") ?? `toolbelt-session-${id}.html`);
	await writeFile(output, html, { mode: 0o600 });
	io.stdout.write(`${output}\n`);
	return ExitCode.ok;
}
