// What runs inside the interpreter (QuickJS) besides the program: source text, handed to the
// worker in its workerData.

/**
 * Runs in the interpreter before the program: `tools`, `console` and the value describer. The
 * host's functions are taken off the global object so the program reaches them only this way.
 */
export const interpreterPrelude = `(() => {
	const call = globalThis.__toolbeltCall;
	const print = globalThis.__toolbeltPrint;
	const names = JSON.parse(globalThis.__toolbeltNames);
	const maxChars = globalThis.__toolbeltMaxChars;
	for (const key of ["__toolbeltCall", "__toolbeltPrint", "__toolbeltNames", "__toolbeltMaxChars"]) delete globalThis[key];
	const textOf = (value) => {
		if (typeof value === "string") return value;
		if (value instanceof Error) return String(value);
		try {
			const json = JSON.stringify(value, (key, inner) => (typeof inner === "bigint" ? String(inner) : inner), 2);
			return json === undefined ? String(value) : json;
		} catch {
			return String(value);
		}
	};
	const cut = (text) => (text.length > maxChars ? text.slice(0, maxChars) : text);
	const tools = Object.create(null);
	for (const name of names) {
		tools[name] = async (args) => {
			const reply = JSON.parse(await call(name, JSON.stringify(args === undefined ? {} : args) ?? "{}"));
			if (reply.error === undefined) return reply.value;
			const error = new Error(reply.error);
			error.tool = name;
			error.details = reply.details;
			throw error;
		};
	}
	globalThis.tools = Object.freeze(tools);
	const log = (...values) => print(cut(values.map(textOf).join(" ")));
	globalThis.console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });
	Object.defineProperty(globalThis, "__toolbeltDescribe", {
		value: (value) => {
			if (value === undefined) return JSON.stringify({ text: null, chars: 0 });
			const text = textOf(value);
			return JSON.stringify({ text: cut(text), chars: text.length });
		},
	});
})();`;

// The message and the program's line (the wrapper adds one line above the program).
export const describeError = `(error) => {
	let text = String(error);
	const line = error && typeof error.stack === "string" ? /program\\.js:(\\d+)/.exec(error.stack) : null;
	if (line) text += " (line " + (Number(line[1]) - 1) + " of the program)";
	return text;
}`;
