/**
 * Which redirections write a file: the targets a command's redirections write, the redirections
 * a read-only command may carry without writing anything, and those whose target bash expands twice.
 */
import type { Redirection } from "./bash-syntax.js";
import { isPlainArgument } from "./plain-command/index.js";
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

/**
 * True for `>&word` onto a file (not a descriptor, not `-`) whose word bash would read differently
 * the second time: bash expands the word, finds no descriptor, turns the redirection into `&>` of
 * the result and expands that again, so `>&'$(cmd)x'` runs `cmd` and `>&'~/x'` writes in the home
 * folder. Only a word of characters no expansion acts on reads the same both times.
 */
export function expandedTwice({ operator, target }: Redirection): boolean {
	if (operator !== ">&" || target === undefined) return false;
	if (isLiteral(target) && /^(?:\d+-?|-)$/.test(target.value)) return false;
	return !isLiteral(target) || !isPlainArgument(target.value);
}
