import { fileURLToPath } from "node:url";
import type { CliRun } from "./cli-binary.js";

const preload = fileURLToPath(new URL("../../helpers/report-peak-memory.cjs", import.meta.url));
const MARKER = /\ntoolbelt-test-peak-rss-kb (\d+)\n/;

/** Environment entries that make a Node child print its peak resident memory as it exits. */
export function peakMemoryEnv(): Record<string, string> {
	return { NODE_OPTIONS: `--require ${preload}` };
}

/** The child's peak resident memory in bytes (from `peakMemoryEnv`'s report), and its stderr without the report. */
export function peakMemoryOf(run: CliRun): { peakBytes: number; stderr: string } {
	const found = MARKER.exec(run.stderr);
	if (!found) throw new Error(`the child did not report its peak memory; stderr: ${run.stderr.slice(0, 500)}`);
	return { peakBytes: Number(found[1]) * 1024, stderr: run.stderr.replace(MARKER, "") };
}
