/**
 * The structured facts of a permission block, carried in `BeforeToolCallResult.details` beside
 * the sentence written for the model, so that programs (the CLI's approval hint, a UI) read data
 * instead of parsing prose.
 */

import type { OpaqueConstruct } from "../shell-policy/opaque-constructs.js";
import type { PermissionBehavior, ToolCategory } from "./rules.js";

/** A file a command would write that needs a rule naming it, and why. */
export interface BlockedWriteTarget {
	/** The path as the command writes it (after quote removal), or the text the parser could not read. */
	path: string;
	/** outside: outside every workspace root; protected: a protected path; unreadable: an expanded path; ruled: a write/edit rule decided. */
	problem: "outside" | "protected" | "unreadable" | "ruled";
}

/** Why a call was blocked by the permission layer, as data. */
export interface PermissionBlockDetails {
	/** Marks these details as the permission layer's. */
	type: "permission";
	/**
	 * - `denied`: a deny rule, the mode or a write rule refuses it; asking would not help.
	 * - `needs-approval`: it needs the user's approval and this session cannot ask.
	 * - `declined`: the user was asked and said no.
	 */
	kind: "denied" | "needs-approval" | "declined";
	/** The tool of the call. */
	toolName: string;
	/** How the modes treat the tool. */
	category: ToolCategory;
	/** Why, in a few words (the clause of the model-facing reason). */
	reason: string;
	/** The rule that decided, when a rule did. */
	rule?: { text: string; source: string; behavior: PermissionBehavior };
	/** The shell construct that made a deny or ask rule apply to a command it could not read. */
	construct?: OpaqueConstruct;
	/** The protected path pattern (`.git`, `.toolbelt`, `.env*`) the call touches, when that is why it needs approval. */
	protectedBy?: string;
	/** The file a command writes that caused the block, when one did. */
	writeTarget?: BlockedWriteTarget;
	/** Allow rules that would let exactly this call run (empty when only a mode or a rule change helps). */
	suggestedAllowRules: string[];
}

/** True when `value` is the details of a permission block. */
export function isPermissionBlockDetails(value: unknown): value is PermissionBlockDetails {
	return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "permission";
}
