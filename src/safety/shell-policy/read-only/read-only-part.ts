/**
 * Whether one simple command is a read-only invocation on the default-mode list, and which paths
 * it then reads: no assignments, no writing redirection, a literal program name.
 */
import type { SimpleCommand } from "../bash-syntax.js";
import { harmlessRedirection } from "../redirections.js";
import { isLiteral } from "../shell-words.js";
import { type ReadOnlyReads, readOnlyInvocation } from "./read-only-commands.js";

/** What a simple command reads when it is a read-only invocation on the list, else undefined. */
export function readOnlyPart(simple: SimpleCommand): ReadOnlyReads | undefined {
	const program = simple.words[0];
	if (!program || simple.assignments.length > 0 || !simple.redirections.every(harmlessRedirection)) return undefined;
	if (!isLiteral(program) || program.value.includes("/")) return undefined;
	return readOnlyInvocation(program.value, simple.words);
}
