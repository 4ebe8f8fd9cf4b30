import type { RecordedSession, SessionStore } from "../../sessions/index.js";
import type { CliIO } from "../io.js";
import type { Style } from "../render/style.js";
import type { AgentSetup } from "../setup/agent-setup.js";

/** The `/resume` line of the interactive help. */
export const resumeHelp = `  /resume [N|ID]  list this folder's recent sessions, or continue one (the model gets its messages)`;

/** Most sessions `/resume` lists. */
const LISTED = 10;

/** This folder's recent sessions with at least one prompt, newest first, the one being recorded left out. */
async function recentSessions(store: SessionStore, setup: AgentSetup): Promise<RecordedSession[]> {
	const { readSessionFile, summarize } = await import("../../sessions/index.js");
	const current = setup.recording.recorder?.id;
	const found: RecordedSession[] = [];
	for (const id of await store.ids()) {
		if (found.length >= LISTED) break;
		if (id === current) continue;
		const session = await readSessionFile(store.pathOf(id)).catch(() => undefined);
		if (!session || session.header.cwd !== setup.recordedWorkspace || session.header.source === "mcp") continue;
		if (summarize(session).turns > 0) found.push(session);
	}
	return found;
}

/**
 * Handles `/resume` (lists this folder's recent sessions, numbered) and `/resume N` or `/resume ID`
 * (continues that session: the model gets its messages, and its file is recorded to from now on).
 * Resolves to false when the line is not a `/resume` command.
 */
export async function handleResumeCommand(text: string, setup: AgentSetup, io: CliIO, style: Style): Promise<boolean> {
	const match = /^\/resume(?:\s+(\S+))?$/.exec(text);
	if (!match) return false;
	const { openSessionsForReading, describeSession } = await import("../commands/sessions.js");
	const { readSessionFile, summarize } = await import("../../sessions/index.js");
	const store = await openSessionsForReading(io);
	if (!store) return true;
	const recent = await recentSessions(store, setup);
	const wanted = match[1];
	if (wanted === undefined) {
		if (recent.length === 0) {
			io.stdout.write(`${style.dim(`No earlier recorded session of ${setup.recordedWorkspace}.`)}\n\n`);
			return true;
		}
		for (const [index, session] of recent.entries()) {
			io.stdout.write(`${style.bold(String(index + 1).padStart(2))}  ${describeSession(summarize(session), false)}\n`);
		}
		io.stdout.write(`${style.dim("Continue one: /resume N (or its id)")}\n\n`);
		return true;
	}
	let session: RecordedSession | undefined = /^\d+$/.test(wanted) ? recent[Number(wanted) - 1] : undefined;
	try {
		session ??= await readSessionFile(store.pathOf(await store.find(wanted)));
	} catch (error) {
		io.stdout.write(`${error instanceof Error ? error.message : String(error)} See /resume.\n\n`);
		return true;
	}
	if (session.header.id === setup.recording.recorder?.id) {
		io.stdout.write(`${style.dim("That is this session.")}\n\n`);
		return true;
	}
	await setup.resumeSession(session);
	const summary = summarize(session);
	const turns = `${summary.turns} turn${summary.turns === 1 ? "" : "s"}`;
	io.stdout.write(
		`${style.dim(`Resumed ${session.header.id} (${turns}, first prompt ${JSON.stringify(summary.firstPrompt)}): the model has its messages.`)}\n\n`,
	);
	return true;
}
