import type { SearchStream } from "../../workspace/index.js";

/**
 * A search stream without the entries `hides` names (absolute paths; a read deny rule), the same
 * for every backend, since it filters what the backend found. Stopping the filtered stream
 * stops the backend's (ripgrep is killed).
 */
export function withoutHidden<TItem>(
	stream: SearchStream<TItem>,
	absolutePathOf: (item: TItem) => string,
	hides: ((absolutePath: string) => boolean) | undefined,
): SearchStream<TItem> {
	if (!hides) return stream;
	async function* kept(): AsyncGenerator<readonly TItem[]> {
		for await (const batch of stream.items) {
			const visible = batch.filter((item) => !hides?.(absolutePathOf(item)));
			if (visible.length > 0) yield visible;
		}
	}
	return { ...stream, items: kept() };
}
