// The one step every file-changing tool (write, edit, apply_patch, notebook edits) takes after the
// new content is worked out and before anything is written: check the syntax of each changed file
// and refuse the call, or add a note to its result.
import { ToolError } from "../engine/index.js";
import { checkSyntaxChange, MAX_CHECKED_TEXT, type SyntaxCheckMode, type SyntaxVerdict } from "./check-change.js";
import { syntaxLanguageOf } from "./languages.js";
import { describeBrokenFile, refusalMessage, warningMessage } from "./report.js";

/** One file a call is about to change. */
export interface GuardedFile {
	/** Absolute path: picks the grammar and keys the kept parse tree. */
	path: string;
	/** How messages show it. */
	display: string;
	/** Its content now (text or bytes), or undefined when it does not exist. */
	before: string | Buffer | undefined;
	/** Its content after the change, or undefined when the change deletes it (not checked). */
	after: string | Buffer | undefined;
}

/** How a call is checked. */
export interface SyntaxGuardOptions {
	/** `reject` (default), `warn` or `off`; see `SyntaxCheckMode`. */
	mode?: SyntaxCheckMode;
	/** The call's `allow_syntax_errors: true`: apply a breaking change, with a warning. Default: false. */
	allowErrors?: boolean;
	/** How the refusal tells the model to force the change. Default: `allow_syntax_errors: true`. */
	forceHint?: string;
}

/** A checked file, for a result's `details`. */
export interface SyntaxCheckedFile extends SyntaxVerdict {
	/** The file as shown. */
	path: string;
}

/** What `guardSyntax` found when it let the call through. */
export interface SyntaxGuardResult {
	/** Notes for the model (errors added, applied anyway), each its own paragraph; empty when none. */
	notes: string[];
	/** Every file checked, with its verdict. */
	files: SyntaxCheckedFile[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function textOf(content: string | Buffer): string | undefined {
	if (typeof content === "string") return content.startsWith("\uFEFF") ? content.slice(1) : content;
	try {
		return decoder.decode(content);
	} catch {
		return undefined;
	}
}

/**
 * The new text of a file the check reads: one with a grammar, not deleted, not larger than the
 * check reads (bytes count as characters here, so a large file is never decoded), valid UTF-8.
 */
function checkedText(file: GuardedFile): string | undefined {
	if (file.after === undefined || !syntaxLanguageOf(file.path)) return undefined;
	if (file.after.length > MAX_CHECKED_TEXT || (file.before?.length ?? 0) > MAX_CHECKED_TEXT) return undefined;
	return textOf(file.after);
}

/**
 * Checks every changed file. Throws a `ToolError` (nothing written yet) when a file that parsed
 * would not, the mode is `reject` and the call did not allow it; otherwise returns the notes to add
 * to the result. A file it cannot read as UTF-8 text, or without a grammar, passes unchecked.
 */
export async function guardSyntax(
	files: readonly GuardedFile[],
	options: SyntaxGuardOptions = {},
): Promise<SyntaxGuardResult> {
	const mode = options.mode ?? "reject";
	const result: SyntaxGuardResult = { notes: [], files: [] };
	if (mode === "off") return result;
	const refused: string[] = [];
	for (const file of files) {
		const after = checkedText(file);
		if (after === undefined) continue;
		const before = file.before === undefined ? undefined : textOf(file.before);
		if (file.before !== undefined && before === undefined) continue;
		const verdict = await checkSyntaxChange({ path: file.path, before, after });
		result.files.push({ path: file.display, ...verdict });
		if (verdict.status === "broken" && mode === "reject" && !options.allowErrors) {
			refused.push(describeBrokenFile(file.display, verdict, after));
		} else if (verdict.status === "broken" || verdict.status === "worse") {
			result.notes.push(warningMessage(file.display, verdict, after));
		}
	}
	if (refused.length > 0) {
		throw new ToolError(refusalMessage(refused, options.forceHint ?? "allow_syntax_errors: true"), {
			reason: "syntax-error",
			syntax: result.files,
		});
	}
	return result;
}
