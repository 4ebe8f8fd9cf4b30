import type { ToolResult, ToolResultMessage } from "../../engine/index.js";

/**
 * Runs a call and yields its progress as it comes, for frameworks whose tools may be async
 * iterables: each yield is the latest partial result (older unread ones are dropped, since each
 * partial result replaces the one before), and the generator returns the final message.
 */
export async function* latestUpdates(
	run: (onUpdate: (partial: ToolResult) => void) => Promise<ToolResultMessage>,
): AsyncGenerator<ToolResult, ToolResultMessage> {
	let latest: ToolResult | undefined;
	let wake: (() => void) | undefined;
	const nudge = () => {
		const resolveWait = wake;
		wake = undefined;
		resolveWait?.();
	};
	const final = run((partial) => {
		latest = partial;
		nudge();
	});
	let finished = false;
	final.then(
		() => {
			finished = true;
			nudge();
		},
		() => {
			finished = true;
			nudge();
		},
	);
	for (;;) {
		if (latest) {
			const partial = latest;
			latest = undefined;
			yield partial;
			continue;
		}
		if (finished) break;
		await new Promise<void>((resolveWait) => {
			wake = resolveWait;
		});
	}
	return await final;
}
