/**
 * Writes durations.json, the record `LongestFirst` orders test files by, from the report of a full
 * run: `npx vitest run --reporter=json --outputFile=report.json`, then
 * `npx tsx test/schedule/update-durations.ts report.json`. Worth redoing when a file's time has
 * changed by tens of seconds; a few seconds either way does not change the order that matters.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

interface Report {
	testResults: { name: string; startTime: number; endTime: number }[];
}

const reportPath = process.argv[2];
if (!reportPath) {
	console.error("usage: npx tsx test/schedule/update-durations.ts <vitest json report>");
	process.exit(2);
}
const root = fileURLToPath(new URL("../../", import.meta.url));
const report = JSON.parse(readFileSync(reportPath, "utf8")) as Report;
const seconds = report.testResults
	.map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
	.sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync(
	new URL("./durations.json", import.meta.url),
	`${JSON.stringify(Object.fromEntries(seconds), null, "\t")}\n`,
);
console.log(`durations.json: ${seconds.length} files`);
