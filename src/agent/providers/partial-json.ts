/**
 * Parses the JSON object a model is still streaming (tool-call arguments) as far as it goes:
 * `{"path": "src/a.ts", "content": "hel` gives `{ path: "src/a.ts", content: "hel" }`.
 * Incomplete keys, literals and escapes are dropped. Returns `{}` when nothing usable parsed
 * or the value is not an object. Never throws.
 */
export function parsePartialJson(text: string): Record<string, unknown> {
	const complete = tryParseObject(text);
	if (complete) return complete;

	const stack: ("{" | "[")[] = [];
	let inString = false;
	let escaped = false;
	let stringIsKey = false;
	let expectKey = false;
	let primitiveStart = -1;
	let safe: { end: number; closers: string } | undefined;
	const closers = () =>
		stack
			.map((open) => (open === "{" ? "}" : "]"))
			.reverse()
			.join("");
	const markSafe = (end: number) => {
		safe = { end, closers: closers() };
	};
	const endPrimitive = (end: number) => {
		if (primitiveStart >= 0) markSafe(end);
		primitiveStart = -1;
	};

	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (inString) {
			if (escaped) escaped = false;
			else if (char === "\\") escaped = true;
			else if (char === '"') {
				inString = false;
				if (!stringIsKey) markSafe(index + 1);
			}
			continue;
		}
		switch (char) {
			case '"':
				endPrimitive(index);
				inString = true;
				stringIsKey = stack.at(-1) === "{" && expectKey;
				expectKey = false;
				break;
			case "{":
			case "[":
				endPrimitive(index);
				stack.push(char);
				expectKey = char === "{";
				markSafe(index + 1);
				break;
			case "}":
			case "]":
				endPrimitive(index);
				stack.pop();
				expectKey = false;
				markSafe(index + 1);
				break;
			case ":":
				endPrimitive(index);
				expectKey = false;
				break;
			case ",":
				endPrimitive(index);
				expectKey = stack.at(-1) === "{";
				break;
			case " ":
			case "\n":
			case "\r":
			case "\t":
				endPrimitive(index);
				break;
			default:
				if (primitiveStart < 0) primitiveStart = index;
		}
	}

	const candidates: string[] = [];
	if (inString && !stringIsKey) {
		const body = escaped ? text.slice(0, -1) : text;
		candidates.push(`${body.replace(/\\u[0-9a-fA-F]{0,3}$/, "")}"${closers()}`);
	}
	if (!inString && primitiveStart >= 0) candidates.push(text + closers());
	if (safe) candidates.push(text.slice(0, safe.end) + safe.closers);
	for (const candidate of candidates) {
		const parsed = tryParseObject(candidate);
		if (parsed) return parsed;
	}
	return {};
}

function tryParseObject(text: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(text);
		if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
	} catch {
		// Incomplete: the caller tries a shorter candidate.
	}
	return undefined;
}

/**
 * Parses the final arguments of a tool call. Returns the object, or — for malformed JSON — the
 * raw string, which the engine reports to the model as invalid arguments (echoing what it sent).
 */
export function parseToolArguments(text: string): Record<string, unknown> {
	if (text.trim() === "") return {};
	const parsed = tryParseObject(text);
	// The engine's validation turns a string into an error result that shows the model its JSON.
	return parsed ?? (text as unknown as Record<string, unknown>);
}
