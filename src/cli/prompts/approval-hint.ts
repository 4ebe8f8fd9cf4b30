import type { ToolHooks } from "../../engine/index.js";
import {
	formatRule,
	isPermissionBlockDetails,
	type PermissionBlockDetails,
	type ToolCategory,
} from "../../safety/index.js";

/** A call refused because it needed approval and nobody could be asked. */
interface UnapprovedCall {
	toolName: string;
	category: ToolCategory;
	/** Allow rules that would let exactly this call through (empty when only a mode or a rule change helps). */
	rules: string[];
	/** Writes to a protected path (.git, .toolbelt, .env*) need a rule: no mode allows them. */
	protectedPath: boolean;
}

/** Single-quoted for a POSIX shell: rules hold parentheses and stars. */
function quoteForShell(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Watches the safety hooks for calls refused because they needed approval where nobody can be
 * asked (print mode, `toolbelt tool`), and words a hint for the person: exactly which flags
 * would let those calls through. It reads the blocks' `PermissionBlockDetails`, never their prose.
 */
export class ApprovalHint {
	private readonly calls: UnapprovedCall[] = [];

	/** `hooks` with every refused-for-approval call recorded. */
	watch(hooks: ToolHooks): ToolHooks {
		const before = hooks.beforeToolCall;
		if (!before) return hooks;
		return {
			...hooks,
			beforeToolCall: async (context, signal) => {
				const decision = await before(context, signal);
				const details = decision?.block ? decision.details : undefined;
				if (isPermissionBlockDetails(details) && details.kind === "needs-approval") this.record(details);
				return decision;
			},
		};
	}

	private record(details: PermissionBlockDetails): void {
		this.calls.push({
			toolName: details.toolName,
			category: details.category,
			rules: details.suggestedAllowRules,
			// A protected path (the call's own, or a file a command writes) needs a rule: no mode allows it.
			protectedPath: details.protectedBy !== undefined,
		});
	}

	/** How many calls were refused for want of approval. */
	get count(): number {
		return this.calls.length;
	}

	/**
	 * Lines for stderr naming the flags that would allow the refused calls, or undefined when
	 * none was refused. `command` is how the person ran toolbelt, e.g. `toolbelt run`.
	 */
	text(command: string): string | undefined {
		if (this.calls.length === 0) return undefined;
		const rules = [...new Set(this.calls.flatMap((call) => call.rules))];
		const count =
			this.calls.length === 1 ? "1 call was not run: it needs" : `${this.calls.length} calls were not run: they need`;
		const lines = [`toolbelt: ${count} approval, and ${command} cannot ask.`];
		if (rules.length > 0) {
			lines.push(`  Allow exactly these: ${rules.map((rule) => `--allow ${quoteForShell(rule)}`).join(" ")}`);
		}
		const byMode = this.calls.filter((call) => !call.protectedPath);
		if (byMode.length > 0) {
			const onlyEdits = byMode.every((call) => call.category === "edit");
			lines.push(
				onlyEdits
					? "  Or allow every file change in the workspace: --mode accept-edits"
					: "  Or allow every command and file change: --mode yolo (deny rules still apply)",
			);
		}
		if (rules.length === 0 && byMode.length === 0) {
			lines.push(`  Allow them with --allow '${formatRule(this.calls[0]!.toolName, "<path>")}'.`);
		}
		lines.push("  Rules can also go in permissions.allow of .toolbelt/settings.json.");
		return `${lines.join("\n")}\n`;
	}
}
