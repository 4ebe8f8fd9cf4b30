import { createHash } from "node:crypto";
import type { Message } from "../agent/index.js";
import type { ToolResultContent } from "../engine/index.js";
import type { RecordedContent } from "./records.js";

/**
 * A result block as a session keeps it: text whole, an image by its type, size and hash (a
 * screenshot a turn would make the file grow by megabytes, and nothing reads it back).
 */
export function recordedContent(block: ToolResultContent): RecordedContent {
	if (block.type !== "image") return block;
	const bytes = Buffer.from(block.data, "base64");
	return {
		type: "image",
		mimeType: block.mimeType,
		bytes: bytes.length,
		sha256: createHash("sha256").update(bytes).digest("hex"),
	};
}

/** Text that stands for an image a session did not keep, when its conversation is resumed. */
export function imageNotKept(block: { mimeType: string; bytes: number }): string {
	return `[an image (${block.mimeType}, ${block.bytes} bytes) was here; sessions do not keep image data]`;
}

/** A message as a session keeps it: images replaced by their description (see `recordedContent`). */
export function recordedMessage(message: Message): Message {
	if (typeof message.content === "string" || message.role === "assistant") return message;
	if (!message.content.some((block) => block.type === "image")) return message;
	const content = message.content.map((block) => {
		if (block.type !== "image") return block;
		const kept = recordedContent(block);
		return { type: "text" as const, text: imageNotKept(kept as { mimeType: string; bytes: number }) };
	});
	return { ...message, content } as Message;
}
