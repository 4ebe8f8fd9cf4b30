/**
 * Writes durations.json, the record `LongestFirst` orders test files by, from the report of a full
 * run: `npx vitest run --reporter=json --outputFile=report.json`, then
 * `npx tsx test/schedule/update-durations.ts report.json`. Worth redoing when a file's time has
 * changed by tens of seconds; a few seconds either way does not change the order that matters.
 * A file that did not pass keeps its recorded time: a file that failed at its start (a missing
 * prerequisite, say) would otherwise be recorded as taking no time at all.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

interface Report {
	testResults: { name: string; status: string; startTime: number; endTime: number }[];
}

const reportPath = process.argv[2];
if (!reportPath) {
	console.error("usage: npx tsx test/schedule/update-durations.ts <vitest json report>");
	process.exit(2);
}
const root = fileURLToPath(new URL("../../", import.meta.url));
const recordPath = new URL("./durations.json", import.meta.url);
const recorded = JSON.parse(readFileSync(recordPath, "utf8")) as Record<string, number>;
const report = JSON.parse(readFileSync(reportPath, "utf8")) as Report;
let kept = 0;
const seconds = report.testResults
	.map((file) => {
		const path = relative(root, file.name);
		const measured = Math.round((file.endTime - file.startTime) / 100) / 10;
		if (file.status === "passed" || recorded[path] === undefined) return [path, measured] as const;
		kept += 1;
		return [path, recorded[path]] as const;
	})
	.sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync(recordPath, `${JSON.stringify(Object.fromEntries(seconds), null, "\t")}\n`);
console.log(`durations.json: ${seconds.length} files, ${kept} that did not pass kept at their recorded time`);
