// What the file-changing tools share about diagnostics: the option that hands them a session, the
// `details` field, and the one step they take after a change is written.
import type { ChangeDiagnostics, DiagnosedChange, DiagnosticsOutcome } from "./session.js";
import type { FileDiagnosticsReport } from "./types.js";

/** The option of write, edit and apply_patch that turns diagnostics on. */
export interface DiagnosticsToolOptions {
	/**
	 * Language servers that check each change once written (`createDiagnosticsSession`); the result
	 * then carries the diagnostics the change introduced. Only for a workspace on this machine: the
	 * servers read the files here. Default: none (no diagnostics).
	 */
	diagnostics?: ChangeDiagnostics;
}

/** The `details` field of a result whose files a language server checked. */
export interface DiagnosticsDetails {
	/** Each changed file a server checked (or left pending); absent when none was. */
	diagnostics?: FileDiagnosticsReport[];
}

/** A changed file as a tool has it: text or bytes (undefined: did not exist, or deleted). */
export interface ChangedContent {
	path: string;
	display: string;
	before: string | Buffer | undefined;
	after: string | Buffer | undefined;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function textOf(content: string | Buffer | undefined): string | undefined | null {
	if (content === undefined) return undefined;
	try {
		const text = typeof content === "string" ? content : decoder.decode(content);
		return text.startsWith("\uFEFF") ? text.slice(1) : text;
	} catch {
		return null;
	}
}

/**
 * The diagnostics of a call's written changes (none without a session, or for files no server
 * checks or that are not UTF-8 text). Contract: never throws.
 */
export async function diagnoseChanges(
	diagnostics: ChangeDiagnostics | undefined,
	files: readonly ChangedContent[],
): Promise<DiagnosticsOutcome> {
	if (!diagnostics) return { notes: [], files: [] };
	const changes: DiagnosedChange[] = [];
	for (const file of files) {
		if (!diagnostics.handles(file.path)) continue;
		const before = textOf(file.before);
		const after = textOf(file.after);
		if (before === null || after === null) continue;
		changes.push({ path: file.path, display: file.display, before, after });
	}
	if (changes.length === 0) return { notes: [], files: [] };
	return diagnostics.afterChange(changes).catch(() => ({ notes: [], files: [] }));
}
