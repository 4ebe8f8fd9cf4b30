import { createSessionRecorder, type SessionRecorder, type SessionRecorderOptions } from "./recorder.js";
import { SessionStore, type SessionStoreOptions } from "./session-store.js";

/** Options of `openSessionRecorder`: the store's and the recorder's. */
export interface OpenSessionRecorderOptions
	extends Omit<SessionStoreOptions, "env">,
		Omit<SessionRecorderOptions, "store"> {}

/**
 * Opens the sessions folder, removes what is past its bounds (never the session being resumed),
 * and starts recording. Returns the recorder, or why nothing is recorded (a folder that is not the
 * user's private one, a file that cannot be made): recording never stops a session from running.
 */
export async function openSessionRecorder(
	options: OpenSessionRecorderOptions,
): Promise<{ recorder: SessionRecorder; refused?: undefined } | { recorder?: undefined; refused: string }> {
	try {
		const store = SessionStore.open(options);
		const recorder = createSessionRecorder({ ...options, store });
		// Pruned after the new file exists, so it counts, and it is kept.
		await store.prune([recorder.id]).catch(() => {});
		return { recorder };
	} catch (error) {
		return { refused: error instanceof Error ? error.message : String(error) };
	}
}
