/**
 * The program of the worker thread that runs a JavaScript regular expression for the built-in
 * search (`BacktrackingMatcher`). It is a string evaluated by `new Worker(…, { eval: true })`,
 * not a module file, so it runs the same from the compiled package and from the bundled CLI.
 * It answers each `{ id, mode, text }` with `{ id, result }` or `{ id, error }`; the same rules as
 * `LinearMatcher`: lines split on "\n", a trailing "\r" removed.
 */
export const backtrackingWorkerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const line = new RegExp(workerData.source, workerData.flags);
const chunk = new RegExp(workerData.source, workerData.flags + "m");
const stripCr = (text) => (text.endsWith("\\r") ? text.slice(0, -1) : text);
function firstMatches(text) {
	if (!text.includes("\\r") && !chunk.test(text)) return null;
	let found = false;
	const starts = text.split("\\n").map((part) => {
		const match = line.exec(stripCr(part));
		if (match === null) return -1;
		found = true;
		return match.index;
	});
	return found ? starts : null;
}
parentPort.on("message", ({ id, mode, text }) => {
	try {
		parentPort.postMessage({ id, result: mode === "test" ? chunk.test(text) : firstMatches(text) });
	} catch (error) {
		parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) });
	}
});
`;
