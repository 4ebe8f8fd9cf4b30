import { homedir } from "node:os";
import type { Message } from "../../agent/index.js";
import type { RecordedSession, SessionRecorder, SessionSource } from "../../sessions/index.js";
import { booleanOption, type ParsedArgs, stringOption, UsageError } from "../args.js";
import type { CliIO } from "../io.js";

/** The home folder the state folder defaults into: the CLI's `HOME`, as for checkpoints. */
export function homeOf(io: CliIO): string {
	return io.env.HOME || homedir();
}

/** What `openCliRecording` opened: the recorder (unless off or refused) and the history to resume. */
export interface CliRecording {
	recorder?: SessionRecorder;
	/** The messages of the session continued with `--continue` / `--resume`; empty for a new one. */
	history: Message[];
	/** The id of the session continued, when one was. */
	resumedId?: string;
}

/** Where a session's workspace is named in its record: the local folder, or the remote workspace's URL. */
export interface RecordingPlace {
	/** The workspace as recorded and as `--continue` finds it. */
	workspace: string;
	/** Local folders the sessions folder must not lie in. */
	workspaceFolders: string[];
}

/**
 * The session `--continue` (the newest of this workspace with a prompt) or `--resume ID` names, read back; undefined
 * without either flag. Throws a usage error for a session that does not exist or belongs elsewhere.
 */
export async function sessionToResume(
	args: ParsedArgs,
	io: CliIO,
	place: RecordingPlace,
): Promise<RecordedSession | undefined> {
	const resumeId = stringOption(args.values, "resume");
	const latest = booleanOption(args.values, "continue");
	if (resumeId === undefined && !latest) return undefined;
	const { SessionStore, readSessionFile } = await import("../../sessions/index.js");
	let store: ReturnType<typeof SessionStore.open>;
	try {
		store = SessionStore.open({ env: io.env, homeDir: homeOf(io), workspaceFolders: place.workspaceFolders });
	} catch (error) {
		throw new UsageError(error instanceof Error ? error.message : String(error), { showHelpHint: false });
	}
	if (resumeId !== undefined) {
		try {
			return await readSessionFile(store.pathOf(await store.find(resumeId)));
		} catch (error) {
			throw new UsageError(error instanceof Error ? error.message : String(error), { showHelpHint: false });
		}
	}
	const { summarize } = await import("../../sessions/index.js");
	for (const id of await store.ids()) {
		const session = await readSessionFile(store.pathOf(id)).catch(() => undefined);
		if (!session || session.header.cwd !== place.workspace || session.header.source === "mcp") continue;
		// A session quit before its first prompt has nothing to continue: the one before it is meant.
		if (summarize(session).turns > 0) return session;
	}
	throw new UsageError(`No recorded session of ${place.workspace} to continue. List them with: toolbelt sessions`, {
		showHelpHint: false,
	});
}

/** Options of `openCliRecording`. */
export interface CliRecordingOptions {
	args: ParsedArgs;
	io: CliIO;
	place: RecordingPlace;
	source: SessionSource;
	model: { provider: string; id: string };
	/** The session to continue (see `sessionToResume`). */
	resume?: RecordedSession;
}

/**
 * Starts recording the session unless `--no-record` is given. A sessions folder that cannot be
 * used is said once on stderr and the session runs unrecorded.
 */
export async function openCliRecording(options: CliRecordingOptions): Promise<CliRecording> {
	const { io, place, resume } = options;
	const { messagesOf, openSessionRecorder } = await import("../../sessions/index.js");
	const history = resume ? messagesOf(resume) : [];
	const resumed = resume ? { resumedId: resume.header.id } : {};
	if (booleanOption(options.args.values, "no-record")) return { history, ...resumed };
	const warn = (message: string) => void io.stderr.write(`toolbelt: ${message}\n`);
	const opened = await openSessionRecorder({
		env: io.env,
		homeDir: homeOf(io),
		workspaceFolders: place.workspaceFolders,
		source: options.source,
		cwd: place.workspace,
		model: options.model,
		...(resume ? { resume } : {}),
		onWarning: warn,
	});
	if (opened.refused !== undefined) warn(`${opened.refused}`);
	return { ...(opened.recorder ? { recorder: opened.recorder } : {}), history, ...resumed };
}

/**
 * Removes a session file that holds no prompt (a session left by `/resume` before its first one),
 * so it is neither listed nor picked by `--continue`.
 */
export async function removeIfEmpty(path: string): Promise<void> {
	const { readSessionFile, summarize } = await import("../../sessions/index.js");
	const session = await readSessionFile(path).catch(() => undefined);
	if (session && summarize(session).turns === 0) {
		const { rm } = await import("node:fs/promises");
		await rm(path, { force: true });
	}
}
