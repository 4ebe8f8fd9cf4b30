import { ToolError } from "../../../src/engine/errors.js";
import type { AgentTool, ToolResult } from "../../../src/engine/types.js";
import type { ShellToolDetails } from "../../../src/tools/shell/types.js";
import { resultText } from "../../helpers/results.js";

/** What a shell call produced, whether it succeeded or threw a ToolError. */
export interface ShellOutcome {
	/** Text the model reads (the result's text, or the error message). */
	text: string;
	/** The call's details. */
	details: ShellToolDetails;
	/** True when the tool threw. */
	isError: boolean;
	/** Wall-clock time of the call, in ms. */
	ms: number;
	/** Progress updates received. */
	updates: { at: number; text: string }[];
}

/** Calls a shell tool and captures its outcome, turning a ToolError into an outcome. */
export async function runTool(
	// biome-ignore lint/suspicious/noExplicitAny: any shell tool, whatever its schema type.
	tool: AgentTool<any, ShellToolDetails>,
	args: { command: string; timeout?: number },
	options: { signal?: AbortSignal; onUpdate?: (text: string) => void } = {},
): Promise<ShellOutcome> {
	const updates: { at: number; text: string }[] = [];
	const started = Date.now();
	const onUpdate = (partial: ToolResult<ShellToolDetails>) => {
		const text = resultText(partial);
		updates.push({ at: Date.now(), text });
		options.onUpdate?.(text);
	};
	try {
		const result = await tool.execute("call", args, options.signal, onUpdate);
		return {
			text: resultText(result),
			details: result.details as ShellToolDetails,
			isError: false,
			ms: Date.now() - started,
			updates,
		};
	} catch (error) {
		if (!(error instanceof ToolError)) throw error;
		return {
			text: error.message,
			details: error.details as ShellToolDetails,
			isError: true,
			ms: Date.now() - started,
			updates,
		};
	}
}
