/**
 * Whether default mode may run a command without asking: every part a read-only invocation on the
 * list (`read-only-commands.ts`), nothing opaque, nothing written, no directory change, no command
 * run by another, and every path it reads inside the workspace and open to the read rules — what
 * the read tool itself would be allowed to read without a question. A listing or a recursive search
 * also reads below its directories, which no read deny or ask rule may reach.
 */
import type { Confinement } from "../../confinement.js";
import type { RuleSet } from "../../permissions/rules.js";
import type { CommandAnalysis } from "../command-analysis.js";
import { isHarmlessTarget } from "../command-writes.js";
import { kernelPath } from "../kernel-path.js";

/** How many paths one command may name and still be judged (each is a real-path lookup). */
const MAX_JUDGED_PATHS = 64;

/** True when default mode may run the analysed command without asking. */
export async function isReadOnlyCommand(
	analysis: CommandAnalysis,
	workspace: Confinement,
	rules: RuleSet,
): Promise<boolean> {
	if (analysis.opaque || analysis.directoryChanges.length > 0) return false;
	if (!analysis.writes.every((write) => isHarmlessTarget(write.word))) return false;
	if (analysis.parts.length === 0 || analysis.inner.some((inner) => inner.length > 0)) return false;
	const reads = analysis.readOnlyReads;
	if (reads.length !== analysis.parts.length || reads.some((read) => read === undefined)) return false;
	const paths = reads.flatMap((read) =>
		(read?.paths ?? []).map((word) => ({ path: word.value, scansBelow: read?.scansBelow === true })),
	);
	// A read-only program with no path operand still reads: its default is the working directory.
	if (paths.length === 0) paths.push({ path: ".", scansBelow: false });
	if (paths.length > MAX_JUDGED_PATHS) return false;
	for (const { path, scansBelow } of paths) {
		// `link/../x` is read where the kernel takes it: from the link's target, not beside the link.
		const absolute = await kernelPath(workspace.cwd, path);
		if (absolute === undefined) return false;
		const check = await workspace.checkReadPath(absolute);
		if (!check || check.root === undefined) return false;
		const evaluation = rules.evaluate("read", {
			kind: "path",
			lexicalPath: check.lexicalPath,
			realPath: check.realPath,
		});
		if (evaluation.behavior === "deny" || evaluation.behavior === "ask") return false;
		// A listing or a recursive search reads what lies below, where no read rule can hide a file.
		if (scansBelow && rules.restrictedBelow("read", check.lexicalPath, check.realPath)) return false;
	}
	return true;
}
