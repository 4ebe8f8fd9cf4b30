import { createSessionRecorder, type SessionRecorder, type SessionRecorderOptions } from "./recorder.js";
import { SessionStore, type SessionStoreOptions } from "./session-store.js";

/** Options of `openSessionRecorder`: the store's and the recorder's. */
export interface OpenSessionRecorderOptions
	extends Omit<SessionStoreOptions, "env">,
		Omit<SessionRecorderOptions, "store"> {}

/** How long after a recording opens the sessions past the folder's bounds are removed, in ms. */
const PRUNE_DELAY_MS = 2_000;

/**
 * Opens the sessions folder, starts recording, and removes what is past the folder's bounds soon
 * after (never the session being recorded or resumed). Returns the recorder, or why nothing is
 * recorded (a folder that is not the user's private one, a file that cannot be made): recording
 * never stops a session from running.
 */
export async function openSessionRecorder(
	options: OpenSessionRecorderOptions,
): Promise<{ recorder: SessionRecorder; refused?: undefined } | { recorder?: undefined; refused: string }> {
	try {
		const store = SessionStore.open(options);
		const recorder = createSessionRecorder({ ...options, store });
		// Pruned after the new file exists, so it counts, and it is kept; a moment later or as the
		// recording closes, whichever comes first, not waited for: the recording opens with a session's
		// first call, which waited for the prune's `stat` of every session kept (~25 ms with 350).
		let pruned = false;
		const prune = () => {
			if (pruned) return;
			pruned = true;
			clearTimeout(timer);
			void store.prune([recorder.id]).catch(() => {});
		};
		const timer = setTimeout(prune, PRUNE_DELAY_MS).unref();
		const closeRecording = recorder.close;
		recorder.close = () => {
			closeRecording();
			prune();
		};
		return { recorder };
	} catch (error) {
		return { refused: error instanceof Error ? error.message : String(error) };
	}
}
