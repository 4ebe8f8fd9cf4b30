/** Anything with result content: a tool result, a tool result message, an MCP `tools/call` answer. */
export interface HasContent {
	/** The blocks; a missing list reads as empty. */
	content?: readonly { type: string; text?: string }[];
}

/** Options of `resultText`. */
export interface ResultTextOptions {
	/** Put between blocks. Default: `""`. */
	separator?: string;
	/** Show a block that is not text as its type in brackets (`[image]`) instead of leaving it out. Default: false. */
	markOthers?: boolean;
}

/** The one way tests read a result's text: its text blocks, joined. */
export function resultText(result: HasContent, options: ResultTextOptions = {}): string {
	const parts: string[] = [];
	for (const block of result.content ?? []) {
		if (block.type === "text") parts.push(block.text ?? "");
		else if (options.markOthers) parts.push(`[${block.type}]`);
	}
	return parts.join(options.separator ?? "");
}
