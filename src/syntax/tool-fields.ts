// What the file-changing tools share about the syntax check: the model's parameter and the option.
import { Type } from "../engine/index.js";
import type { SyntaxCheckMode } from "./check-change.js";
import type { SyntaxCheckedFile } from "./guard.js";
import { syntaxLanguageOf } from "./languages.js";

/** The `allow_syntax_errors` parameter of write, edit and apply_patch. */
export const allowSyntaxErrorsParameter = Type.Optional(
	Type.Boolean({
		description:
			"Apply the change even if it leaves a file that parses now with syntax errors (for a file finished in a later call). Default: false.",
	}),
);

/** The option of write, edit and apply_patch that sets the syntax check. */
export interface SyntaxCheckToolOptions {
	/**
	 * What to do with a change that leaves a file that parses with syntax errors: `reject` refuses it
	 * (the call's `allow_syntax_errors: true` applies it), `warn` applies it with a note, `off` does
	 * not parse. Default: `"reject"`.
	 */
	syntaxCheck?: SyntaxCheckMode;
}

/** The `details` field of a result whose files were checked. */
export interface SyntaxCheckDetails {
	/** Each changed file the check read, with its verdict; absent when none was checked. */
	syntax?: SyntaxCheckedFile[];
}

/** Whether a change to this file is checked (so a tool that does not read the old content must). */
export function isSyntaxChecked(path: string, mode: SyntaxCheckMode | undefined): boolean {
	return mode !== "off" && syntaxLanguageOf(path) !== undefined;
}
