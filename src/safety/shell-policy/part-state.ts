/**
 * What one analysis of a command line builds, and the state it carries per simple command (a
 * "part"): the types the readers of a part fill in, and the helpers they share to mark the part
 * opaque and to turn its words into the text rules are matched against.
 */
import { type OpaqueConstruct, type OpaqueConstructName, opaqueConstruct } from "./opaque-constructs.js";
import type { ReadOnlyReads } from "./read-only/read-only-commands.js";
import type { ShellWord } from "./shell-words.js";

/** A file a command writes through a redirection, `tee` or a writing option. */
export interface WriteTarget {
	/** The target word (its `value` is the path after quote removal when it is literal). */
	word: ShellWord;
	/** How it is written: the redirection operator, `tee`, or the option (`sort -o`, `sed -i`). */
	via: string;
	/** The index of the simple command (in `CommandAnalysis.parts`) that writes it. */
	part: number;
}

/** A `cd` or `pushd`: relative paths after it are taken from somewhere else. */
export interface DirectoryChange {
	/** The literal directory, `~` for home; undefined when it cannot be read (`cd "$d"`, `cd -`). */
	path?: string;
}

/** The analysis of one command line. */
export interface CommandAnalysis {
	/** The simple commands as written (whitespace collapsed): what allow rules are matched against. */
	parts: string[];
	/** Per part: the forms deny and ask rules are checked against (`UNKNOWN` marks an expansion). */
	forms: string[][];
	/** Per part: the commands it makes another program run; an allow rule must cover each of them too. */
	inner: string[][];
	/** The first construct the rules cannot see through, if any. */
	opaque?: OpaqueConstruct;
	/** Files written through redirections, `tee` and writing options, also inside literal `bash -c` scripts. */
	writes: WriteTarget[];
	/** `cd` / `pushd` commands, in order. */
	directoryChanges: DirectoryChange[];
	/**
	 * Per part: what it reads when it is a read-only invocation on the default-mode list
	 * (`read-only/read-only-commands.ts`; no paths when it reads none), undefined when it is not one.
	 */
	readOnlyReads: (ReadOnlyReads | undefined)[];
}

/** Per-part working state of one analysis. */
export interface PartState {
	/** The analysis the part belongs to (writes, directory changes and the first opaque construct go there). */
	analysis: CommandAnalysis;
	/** The part's index in `analysis.parts`. */
	part: number;
	/** The forms deny and ask rules see for this part. */
	forms: string[];
	/** The commands this part makes another program run. */
	inner: string[];
	/** How many `bash -c` scripts deep the reader is. */
	depth: number;
}

/** Records the first construct that makes the command line unreadable to the rules. */
export function markOpaque(state: PartState, construct: OpaqueConstructName, text: string): void {
	state.analysis.opaque ??= opaqueConstruct(construct, text);
}

/** The words as written, for messages and for allow rules. */
export function written(words: readonly ShellWord[]): string {
	return words.map((word) => word.raw).join(" ");
}

/** The words after quote removal: a form deny and ask rules are matched against. */
export function joined(words: readonly ShellWord[]): string {
	return words.map((word) => word.value).join(" ");
}
