import type { ToolResultContent } from "../../engine/index.js";
import { formatSize } from "../../engine/index.js";

/** A tool result's content as a person reads it: text as is, images as a one-line notice. */
export function contentToText(content: readonly ToolResultContent[]): string {
	return content
		.map((block) =>
			block.type === "text"
				? block.text
				: `[image: ${block.mimeType}, ${formatSize(Math.floor((block.data.length * 3) / 4))}]`,
		)
		.join("\n");
}
