/**
 * Which redirections write a file: the targets a command's redirections write, and the
 * redirections a read-only command may carry without writing anything.
 */
import type { Redirection } from "./bash-syntax.js";
import { isLiteral, type ShellWord } from "./shell-words.js";

/** Operators that write to their target (for `>&`, only when the target is not a descriptor). */
const writingOperators = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

/** The redirections that write to a file: not `2>&1`, `>&-`, input or heredocs. */
export function writtenTargets(redirections: readonly Redirection[]): ShellWord[] {
	const targets: ShellWord[] = [];
	for (const { operator, target } of redirections) {
		if (!writingOperators.has(operator) || target === undefined) continue;
		if (operator === ">&" && /^(?:\d+-?|-)$/.test(target.raw)) continue;
		targets.push(target);
	}
	return targets;
}

/** Redirections a read-only part may carry: to `/dev/null`, or one descriptor onto another (`2>&1`). */
export function harmlessRedirection({ operator, target }: Redirection): boolean {
	if (target === undefined || !isLiteral(target)) return false;
	if (operator === ">&" || operator === "<&") return /^(?:\d+|-)$/.test(target.value);
	return writingOperators.has(operator) && target.value === "/dev/null";
}
